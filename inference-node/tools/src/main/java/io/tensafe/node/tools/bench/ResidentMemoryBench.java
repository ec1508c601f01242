package io.tensafe.node.tools.bench;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The memory a loaded model holds: a test-scope main, run by {@code ./tensafe bench memory} (on the
 * tools' class path, which carries the runtime's test jar) or directly on the runtime's test class
 * path. Arguments: {@code DIR [--layers K] [--dtype bf16|f16|f32] [--tokens N]}. When {@code DIR}
 * holds no {@code config.json}, a model of Qwen2.5-1.5B's shape (Qwen2 architecture, tied
 * embeddings, seed 1) with K layers (28) in the given type (BF16) is written there first; an
 * existing folder is measured as it is.
 *
 * <p>Prints, in MiB: the process's resident set (VmRSS of {@code /proc/self/status}) before
 * loading, after loading plus a 6-token prefill and N decode steps (8), and after {@code
 * System.gc()}; its peak (VmHWM); the Java heap in use after that collection; and the JVM's direct
 * buffers (where DJL's CPU arrays live). Also the load seconds and the decode ms/token. Linux only.
 */
public final class ResidentMemoryBench {
  private static final long[] PROMPT = {9707, 11, 1879, 0, 3555, 374};

  private ResidentMemoryBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].startsWith("-")) {
      System.err.println(
          "usage: ResidentMemoryBench DIR [--layers K] [--dtype bf16|f16|f32] [--tokens N]");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    int layers = 28;
    DType dtype = DType.BF16;
    int tokens = 8;
    for (int i = 1; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--layers" -> layers = Integer.parseInt(args[i + 1]);
        case "--dtype" -> dtype = DType.valueOf(args[i + 1].toUpperCase(Locale.ROOT));
        case "--tokens" -> tokens = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    System.setProperty("ai.djl.offline", "true");
    if (!Files.exists(dir.resolve("config.json"))) {
      System.err.printf(
          Locale.ROOT, "writing %d layers of the 1.5B shape to %s ...%n", layers, dir);
      ModelGenerator.write(
          ModelShape.QWEN25_1_5B.withLayers(layers),
          dtype,
          1,
          dir,
          System.err::println,
          ModelGenerator.Arch.QWEN2);
    }
    settle();
    long rssBefore = status("VmRSS");
    long started = System.nanoTime();
    QwenDecoder decoder = new QwenDecoder(ModelFolder.load(dir));
    double loadSeconds = (System.nanoTime() - started) / 1e9;
    double msPerToken;
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(PROMPT, cache);
      long decodeStart = System.nanoTime();
      for (int t = 0; t < tokens; t++) {
        logits = decoder.forward(new long[] {argmax(logits)}, cache);
      }
      msPerToken = (System.nanoTime() - decodeStart) / 1e6 / tokens;
    }
    long rssLoaded = status("VmRSS");
    settle();
    long rssSettled = status("VmRSS");
    long heapUsed = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    long direct =
        ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(b -> b.getName().equals("direct"))
            .mapToLong(BufferPoolMXBean::getMemoryUsed)
            .sum();
    System.out.printf(
        Locale.ROOT,
        "model %s (%d layers, %s, %d hidden)%n"
            + "load_seconds %.1f%ndecode_ms_per_token %.1f%n"
            + "rss_before_load_mib %d%nrss_after_load_and_decode_mib %d%nrss_after_gc_mib %d%n"
            + "rss_peak_mib %d%nheap_used_after_gc_mib %d%ndirect_buffers_mib %d%n",
        dir,
        decoder.shape().layers(),
        Files.readString(dir.resolve("config.json"))
            .replaceAll("(?s).*\"torch_dtype\":\\s*\"(\\w+)\".*", "$1"),
        decoder.shape().hiddenSize(),
        loadSeconds,
        msPerToken,
        rssBefore >> 10,
        rssLoaded >> 10,
        rssSettled >> 10,
        status("VmHWM") >> 10,
        heapUsed >> 20,
        direct >> 20);
    decoder.close();
  }

  private static long argmax(float[] logits) {
    int best = 0;
    for (int i = 1; i < logits.length; i++) {
      if (logits[i] > logits[best]) {
        best = i;
      }
    }
    return best;
  }

  private static void settle() throws InterruptedException {
    System.gc();
    System.gc();
    Thread.sleep(500);
  }

  /** A {@code /proc/self/status} field in KiB. */
  private static long status(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IOException("/proc/self/status has no " + field);
  }
}
