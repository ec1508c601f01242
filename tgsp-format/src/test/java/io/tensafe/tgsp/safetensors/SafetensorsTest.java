package io.tensafe.tgsp.safetensors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.io.LimitExceededException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SafetensorsTest {
  @TempDir Path dir;

  /** One malformed header per rule; data section of {@code dataLength} zero bytes. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          gap between tensors       | {"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}} | 12
          overlap                   | {"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}} | 8
          not starting at 0         | {"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}} | 8
          trailing data bytes       | {"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} | 5
          truncated data            | {"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} | 4
          size does not match shape | {"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}} | 8
          unsupported dtype         | {"a":{"dtype":"I8","shape":[1],"data_offsets":[0,1]}} | 1
          shape overflow            | {"a":{"dtype":"F64","shape":[2147483647,2147483647,2147483647],"data_offsets":[0,8]}} | 8
          negative dimension        | {"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}} | 4
          fractional offset         | {"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4.5]}} | 4
          reversed offsets          | {"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}} | 4
          unknown field             | {"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}} | 4
          metadata not strings      | {"__metadata__":{"k":1},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} | 4
          empty tensor name         | {"":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} | 4
          header is an array        | [1,2] | 0
          duplicate tensor          | {"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} | 4
          """)
  void parse_malformedHeader_isRefused(String rule, String header, long dataLength) {
    MalformedSafetensorsException e =
        assertThrows(
            MalformedSafetensorsException.class,
            () -> SafetensorsHeader.parse(header.getBytes(StandardCharsets.UTF_8), dataLength),
            rule);
    assertTrue(e.getMessage().length() > 10);
  }

  @Test
  void open_headerLengthOverLimit_isRefusedBeforeAllocating() throws Exception {
    Path file = dir.resolve("huge.safetensors");
    Files.write(
        file,
        ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(Long.MAX_VALUE).array());
    assertThrows(LimitExceededException.class, () -> SafetensorsFile.open(file));
    Files.write(file, ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(100).array());
    assertThrows(MalformedSafetensorsException.class, () -> SafetensorsFile.open(file));
    Files.write(file, new byte[5]);
    assertThrows(MalformedSafetensorsException.class, () -> SafetensorsFile.open(file));
  }

  @Test
  void writeThenRead_everyDtype_roundTrips() throws Exception {
    double[] values = {0, 1, -2.5, 0.0078125, 65504, -1e-3};
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<Tensor> tensors =
        List.of(
            Tensor.of("w64", DType.F64, List.of(2L, 3L), values),
            Tensor.of("w32", DType.F32, List.of(6L), values),
            Tensor.of("w16", DType.F16, List.of(3L, 2L), values),
            Tensor.of("wbf", DType.BF16, List.of(6L), values),
            Tensor.of("empty", DType.F32, List.of(0L, 4L), new double[0]));
    SafetensorsWriter.write(tensors, Map.of("format", "pt"), out);
    byte[] bytes = out.toByteArray();
    long headerLength = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
    assertEquals(0, headerLength % 8, "header padded to 8 bytes");
    Path file = dir.resolve("t.safetensors");
    Files.write(file, bytes);
    try (SafetensorsFile f = SafetensorsFile.open(file)) {
      assertEquals(Map.of("format", "pt"), f.header().metadata());
      for (Tensor t : tensors) {
        Tensor read = f.read(f.header().tensor(t.name()).orElseThrow());
        assertArrayEquals(t.data(), read.data(), t.name());
        assertEquals(t.shape(), read.shape());
      }
      assertArrayEquals(values, f.read(f.header().tensor("w64").orElseThrow()).values());
      assertArrayEquals(
          new double[] {0, 1, -2.5, 0.0078125, 65504, -0.0010004043579101562},
          f.read(f.header().tensor("w16").orElseThrow()).values());
    }
  }

  @Test
  void bfloat16_roundsToNearestEven() {
    assertEquals((short) 0x3F80, Tensor.toBfloat16(1.0f));
    // 1 + 2^-8 is exactly halfway between bf16 1.0 and 1.0078125: ties go to the even mantissa.
    assertEquals((short) 0x3F80, Tensor.toBfloat16(1.00390625f));
    assertEquals((short) 0x3F82, Tensor.toBfloat16(1.01171875f));
    assertTrue(Float.isNaN(Float.intBitsToFloat(Tensor.toBfloat16(Float.NaN) << 16)));
  }
}
