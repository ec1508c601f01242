package io.tensafe.node.privatemode;

import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.TinyModel;
import io.tensafe.tgsp.safetensors.DType;

/**
 * The private-mode tests' common setting: the generated tiny model (seed 31) with a rank-4 adapter
 * on its attention (seed 7) and the plan private mode runs it with.
 */
record TinyAttention(TinyModel model, QwenDecoder decoder, LoraAdapter adapter, SitePlan plan)
    implements AutoCloseable {
  static TinyAttention load() throws Exception {
    TinyModel model = TinyModel.generate(DType.F32, 31);
    QwenDecoder decoder = model.decoder();
    LoraAdapter adapter =
        LoraAdapter.randomForAttention(decoder.shape(), 4, LoraAdapter.scale(8, 4, false), 1.0, 7);
    return new TinyAttention(model, decoder, adapter, SitePlan.of(adapter, decoder.adapterShape()));
  }

  @Override
  public void close() throws Exception {
    model.close();
  }
}
