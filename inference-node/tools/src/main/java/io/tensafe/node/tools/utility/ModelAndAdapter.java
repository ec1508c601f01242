package io.tensafe.node.tools.utility;

import io.tensafe.node.adapter.PeftAdapters;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.WeightPrecision;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The model folder and PEFT adapter a utility benchmark runs (a picocli mixin): {@code --model-dir}
 * and {@code --adapter}, by default the demo model's {@code demo-adapter}.
 */
final class ModelAndAdapter {
  @Option(names = "--model-dir", required = true, description = "the base model's folder")
  Path modelDir;

  @Option(
      names = "--adapter",
      description = "the PEFT adapter folder (default: MODEL_DIR/demo-adapter)")
  Path adapterDir;

  /** The model, in F32 (the benchmarks compare against it exactly); the caller closes it. */
  QwenDecoder decoder() throws IOException {
    return new QwenDecoder(ModelFolder.load(modelDir), WeightPrecision.F32);
  }

  /** The adapter, read for {@code decoder}'s sites. */
  LoraAdapter adapter(QwenDecoder decoder) throws Exception {
    return PeftAdapters.read(
        adapterDir != null ? adapterDir : modelDir.resolve("demo-adapter"), decoder.adapterShape());
  }
}
