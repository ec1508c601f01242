package io.tensafe.kernels.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The compiled CUDA kernels packaged in this jar: a fatbin with SASS for sm_80 and sm_90 plus
 * compute_90 PTX (for newer GPUs), built by {@code src/build/build-fatbin.sh} when nvcc was present
 * at build time. {@code cuda-build.properties} records whether it was and with which nvcc.
 *
 * <p>The fatbin goes to the driver ({@code cuModuleLoadData}); JCuda's own PTX compiler, which
 * rejects nvcc 13's PTX, is never used.
 */
public record KernelImage(byte[] fatbin, String nvccVersion) {
  /** The resource folder, relative to the class path root. */
  static final String FOLDER = "io/tensafe/kernels/cuda/";

  /** Fatbin magic number, little-endian at offset 0 ({@code 0xBA55ED50}). */
  static final int FATBIN_MAGIC = 0xBA55ED50;

  /** Every kernel entry point the backend looks up; the PTX must define each. */
  public static final List<String> ENTRY_POINTS =
      List.of(
          "ntt_forward_tile",
          "ntt_inverse_tile",
          "ntt_forward_columns_2",
          "ntt_forward_columns_4",
          "ntt_forward_columns_8",
          "ntt_forward_columns_16",
          "ntt_forward_columns_32",
          "ntt_inverse_columns_2",
          "ntt_inverse_columns_4",
          "ntt_inverse_columns_8",
          "ntt_inverse_columns_16",
          "ntt_inverse_columns_32",
          "helora_encrypt",
          "helora_product_extract",
          "helora_product",
          "helora_gather",
          "counter_uniform",
          "counter_errors");

  /** The build record: {@code built=true|false}, and {@code reason} or {@code nvcc}. */
  public static Properties buildProperties() {
    Properties properties = new Properties();
    try (InputStream in = resource("cuda-build.properties")) {
      if (in == null) {
        properties.setProperty("built", "false");
        properties.setProperty("reason", "this jar has no CUDA build record");
      } else {
        properties.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties;
  }

  /**
   * The image, or empty when this jar was built without nvcc (the build record then says why).
   *
   * @throws IllegalStateException if the build record says the kernels were built but the fatbin is
   *     missing or does not start with the fatbin magic number
   */
  public static Optional<KernelImage> load() {
    Properties properties = buildProperties();
    if (!"true".equals(properties.getProperty("built"))) {
      return Optional.empty();
    }
    byte[] bytes = readResource("tensafe_kernels.fatbin");
    if (bytes.length < 16 || littleEndianInt(bytes) != FATBIN_MAGIC) {
      throw new IllegalStateException("the packaged CUDA fatbin is malformed (bad magic number)");
    }
    return Optional.of(new KernelImage(bytes, properties.getProperty("nvcc", "unknown")));
  }

  /** The packaged PTX text (compute_90), for inspection and tests. */
  public static String ptx() {
    return new String(readResource("tensafe_kernels.ptx"), java.nio.charset.StandardCharsets.UTF_8);
  }

  static int littleEndianInt(byte[] bytes) {
    return (bytes[0] & 0xFF)
        | (bytes[1] & 0xFF) << 8
        | (bytes[2] & 0xFF) << 16
        | (bytes[3] & 0xFF) << 24;
  }

  private static byte[] readResource(String name) {
    try (InputStream in = resource(name)) {
      if (in == null) {
        throw new IllegalStateException("the CUDA resource " + FOLDER + name + " is missing");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream resource(String name) {
    return KernelImage.class.getClassLoader().getResourceAsStream(FOLDER + name);
  }
}
