package io.tensafe.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The packaged kernels are present and well-formed whenever nvcc was there to build them. */
class KernelImageTest {

  private static boolean nvccOnThisMachine() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "nvcc"))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/local/cuda/bin/nvcc"));
  }

  @Test
  void buildRecord_saysBuiltExactlyWhenNvccIsPresent() {
    Properties properties = KernelImage.buildProperties();
    boolean built = "true".equals(properties.getProperty("built"));
    assertEquals(nvccOnThisMachine(), built, "cuda-build.properties: " + properties);
    if (!built) {
      assertFalse(properties.getProperty("reason", "").isBlank(), "a build without nvcc says why");
      assertTrue(KernelImage.load().isEmpty());
    }
  }

  @Test
  void fatbin_whenBuilt_hasMagicNumberAndBothArchitectures() {
    if (!nvccOnThisMachine()) {
      return; // covered by buildRecord_saysBuiltExactlyWhenNvccIsPresent
    }
    KernelImage image = KernelImage.load().orElseThrow();
    assertEquals(KernelImage.FATBIN_MAGIC, KernelImage.littleEndianInt(image.fatbin()));
    String text = new String(image.fatbin(), java.nio.charset.StandardCharsets.ISO_8859_1);
    assertTrue(text.contains("sm_80") || text.contains("sm_90"), "fatbin names its targets");
    assertEquals(
        "sm_80,sm_90,compute_90", KernelImage.buildProperties().getProperty("architectures"));
  }

  @Test
  void ptx_whenBuilt_definesEveryEntryPointForHopper() {
    if (!nvccOnThisMachine()) {
      return;
    }
    String ptx = KernelImage.ptx();
    assertTrue(Pattern.compile("(?m)^\\.version \\d+\\.\\d+").matcher(ptx).find(), "PTX version");
    assertTrue(Pattern.compile("(?m)^\\.target sm_90\\b").matcher(ptx).find(), "PTX target");
    assertTrue(ptx.contains(".address_size 64"));
    for (String entry : KernelImage.ENTRY_POINTS) {
      assertTrue(
          Pattern.compile("\\.entry " + entry + "\\(").matcher(ptx).find(), "entry " + entry);
    }
  }
}
