package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.WeightTensor;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsWriter;
import io.tensafe.tgsp.safetensors.Tensor;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Adapters on Qwen3-MoE's routed experts (issue 23): an expert's LoRA applies only to the tokens
 * routed to it. Checked against the same model with every adapted weight merged ({@code W + s·B·A})
 * and no adapter, and in HE against plaintext.
 */
class ExpertAdaptersTest {
  private static final long[] PROMPT = {9707, 11, 1879, 0, 3555, 374};

  private static float[] logits(QwenDecoder decoder, AdapterDeltas lora) {
    try (KvCache cache = decoder.newCache()) {
      return decoder.forward(PROMPT, cache, lora);
    }
  }

  /** The folder's tensors with each adapted module's weight replaced by W + s·B·A, as F32. */
  private static Path merged(Path dir, LoraAdapter adapter) throws Exception {
    ModelFolder folder = ModelFolder.load(dir);
    List<Tensor> tensors = new ArrayList<>();
    for (Map.Entry<String, WeightTensor> e : folder.weights().entrySet()) {
      float[] values = e.getValue().floats();
      String module = e.getKey().replaceAll("\\.weight$", "");
      LoraAdapter.Site site = adapter.sites().get(module);
      if (site != null) {
        int in = site.a()[0].length;
        for (int o = 0; o < site.b().length; o++) {
          for (int i = 0; i < in; i++) {
            double delta = 0;
            for (int k = 0; k < site.rank(); k++) {
              delta += site.b()[o][k] * site.a()[k][i];
            }
            values[o * in + i] += (float) (site.scale() * delta);
          }
        }
      }
      ByteBuffer bytes = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
      for (float v : values) {
        bytes.putFloat(v);
      }
      tensors.add(new Tensor(e.getKey(), DType.F32, e.getValue().shape(), bytes.array()));
    }
    Path out = Files.createTempDirectory("merged-model");
    Files.copy(dir.resolve("config.json"), out.resolve("config.json"));
    try (OutputStream stream = Files.newOutputStream(out.resolve("model.safetensors"))) {
      SafetensorsWriter.write(tensors, Map.of(), stream);
    }
    return out;
  }

  @Test
  void expertAdapters_equalTheMergedWeights_andHeEqualsPlaintext() throws Exception {
    try (TinyModel model = TinyModel.generate(DType.F32, 51, ModelGenerator.Arch.QWEN3_MOE)) {
      ModelShape shape = model.decoder().shape();
      LoraAdapter adapter =
          LoraAdapter.randomForAttention(shape, 4, 2.0, 0.05, 52)
              .with(LoraAdapter.randomForExperts(shape, ModelGenerator.TINY_MOE, 4, 2.0, 0.2, 53));
      float[] base = logits(model.decoder(), null);
      LoraPath plain =
          new LoraPath(new PreparedAdapter(adapter, null), LoraPath.Mode.PLAINTEXT, null);
      float[] adapted = logits(model.decoder(), plain);
      Path mergedDir = merged(model.dir(), adapter);
      float[] expected;
      try (QwenDecoder merged = new QwenDecoder(ModelFolder.load(mergedDir))) {
        expected = logits(merged, null);
      }
      LoraPath he =
          new LoraPath(
              new PreparedAdapter(adapter, new HeOperators(new CpuBackend())),
              LoraPath.Mode.HE,
              null);
      float[] encrypted = logits(model.decoder(), he);
      double largest = 0;
      double effect = 0;
      double mergedError = 0;
      double heError = 0;
      for (int i = 0; i < base.length; i++) {
        largest = Math.max(largest, Math.abs(expected[i]));
        effect = Math.max(effect, Math.abs(expected[i] - base[i]));
        mergedError = Math.max(mergedError, Math.abs(expected[i] - adapted[i]));
        heError = Math.max(heError, Math.abs(encrypted[i] - adapted[i]));
      }
      assertTrue(effect > 0.01 * largest, "the adapters must change the logits: " + effect);
      assertTrue(mergedError < 1e-4 * largest, "plaintext vs merged: " + mergedError);
      assertTrue(heError < 1e-3 * largest, "HE vs plaintext: " + heError + " of " + largest);
      assertTrue(effect > 20 * (mergedError + heError), "the test must be able to fail");
    }
  }

  @Test
  void releases_countEverySiteOfEveryRoutedExpert_asTheMarketplaceDoes() throws Exception {
    try (TinyModel model = TinyModel.generate(DType.F32, 54, ModelGenerator.Arch.QWEN3_MOE)) {
      ModelShape shape = model.decoder().shape();
      LoraAdapter adapter =
          LoraAdapter.randomForAttention(shape, 4, 2.0, 0.05, 55)
              .with(LoraAdapter.randomForExperts(shape, ModelGenerator.TINY_MOE, 4, 2.0, 0.2, 56));
      LoraPath noisy =
          new LoraPath(
              new PreparedAdapter(adapter, null),
              LoraPath.Mode.PLAINTEXT,
              new InputPrivacy(1.0, 1.0));
      logits(model.decoder(), noisy);
      int perToken =
          io.tensafe.tgsp.peft.LoraInputs.releasesPerToken(
              adapter.sites().keySet().stream().map(site -> site + ".lora_A.weight").toList(),
              ModelGenerator.TINY_MOE.expertsPerToken());
      int sparse = 0;
      for (int l = 0; l < shape.layers(); l++) {
        sparse += ModelGenerator.TINY_MOE.sparse(l) ? 1 : 0;
      }
      long attention =
          adapter.sites().keySet().stream().filter(s -> !s.contains(".experts.")).count();
      // Every attention site, and gate, up and down of every routed expert of a sparse layer.
      assertEquals(
          attention + sparse * 3L * ModelGenerator.TINY_MOE.expertsPerToken(), (long) perToken);
      assertEquals((long) PROMPT.length * perToken, noisy.releases());
    }
  }
}
