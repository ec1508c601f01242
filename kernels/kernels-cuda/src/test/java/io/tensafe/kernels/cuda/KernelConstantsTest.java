package io.tensafe.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The constants Java launches with are the CUDA source's {@code #define}s: a kernel sized for one
 * limit and launched under another reads past its arrays or drops outputs without an error.
 */
class KernelConstantsTest {
  private static final Path SOURCE = Path.of("src/main/cuda/tensafe_kernels.cu");

  private static Map<String, Integer> defines() throws IOException {
    Map<String, Integer> defines = new HashMap<>();
    Matcher m =
        Pattern.compile("(?m)^#define ([A-Z_]+) (\\d+)\\s*$").matcher(Files.readString(SOURCE));
    while (m.find()) {
      defines.put(m.group(1), Integer.parseInt(m.group(2)));
    }
    return defines;
  }

  @Test
  void launchConstants_equalTheCudaSourcesDefines() throws IOException {
    Map<String, Integer> defines = defines();
    assertEquals(defines.get("TILE"), Kernels.TILE, "TILE");
    assertEquals(defines.get("TILE_THREADS"), Kernels.TILE_THREADS, "TILE_THREADS");
    assertEquals(defines.get("MAX_FUSED_OUTPUTS"), Kernels.MAX_FUSED_OUTPUTS, "MAX_FUSED_OUTPUTS");
    assertEquals(defines.get("FUSED_THREADS"), Kernels.FUSED_THREADS, "FUSED_THREADS");
  }

  @Test
  void counterSamplingConstants_equalTheJavaReferences() throws IOException {
    String source = Files.readString(SOURCE);
    assertTrue(
        source.contains(
            String.format(
                "#define COUNTER_UNIFORM_DOMAIN 0x%08xu",
                io.tensafe.kernels.ring.CounterSampler.UNIFORM_DOMAIN)));
    assertTrue(
        source.contains(
            String.format(
                "#define COUNTER_ERROR_DOMAIN 0x%08xu",
                io.tensafe.kernels.ring.CounterSampler.ERROR_DOMAIN)));
    assertEquals(
        io.tensafe.kernels.ring.CounterSampler.gaussianTable().length,
        defines().get("COUNTER_ERROR_TABLE"));
    assertEquals(3, io.tensafe.kernels.ring.CounterSampler.WORDS_PER_UNIFORM, "24 words: 3 blocks");
  }

  @Test
  void everyColumnKernelTheLauncherUses_isAnEntryPoint() throws IOException {
    String source = Files.readString(SOURCE);
    for (int r = 2; r <= Kernels.MAX_DEGREE / Kernels.TILE; r *= 2) {
      assertTrue(source.contains("COLUMN_KERNELS(" + r + ")"), "column kernels for R = " + r);
      assertTrue(KernelImage.ENTRY_POINTS.contains("ntt_forward_columns_" + r));
      assertTrue(KernelImage.ENTRY_POINTS.contains("ntt_inverse_columns_" + r));
    }
  }

  @Test
  void everyEntryPoint_isAKernelOfTheSource() throws IOException {
    String source = Files.readString(SOURCE);
    for (String entry : KernelImage.ENTRY_POINTS) {
      boolean direct =
          Pattern.compile("__global__ void (__launch_bounds__\\(\\w+\\)\\s+)?" + entry + "\\(")
              .matcher(source)
              .find();
      boolean column = entry.matches("ntt_(forward|inverse)_columns_\\d+");
      assertTrue(direct || column, entry + " is declared in " + SOURCE);
    }
  }
}
