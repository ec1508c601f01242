package io.tensafe.node.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.node.model.ModelShape;
import org.junit.jupiter.api.Test;

class DecodeRooflineTest {
  @Test
  void weightBytesPerToken_qwen25Shape_isEveryMatrixOnce() {
    // Per layer: q and o 2·1536·1536, k and v 2·1536·256, gate, up and down 3·1536·8960; head
    // 151936·1536.
    long layer = 2L * 1536 * 1536 + 2L * 1536 * 256 + 3L * 1536 * 8960;
    long values = 28 * layer + 151_936L * 1536;
    assertEquals(1_543_569_408L, values);
    assertEquals(2 * values, DecodeRoofline.weightBytesPerToken(ModelShape.QWEN25_1_5B, 2));
    assertEquals(4 * values, DecodeRoofline.weightBytesPerToken(ModelShape.QWEN25_1_5B, 4));
  }

  @Test
  void weightBytesPerToken_isParametersLessNormsAndBiasesOfQwen3() {
    ModelShape s = ModelShape.TINY;
    long vectors = (long) s.layers() * (2L * s.hiddenSize() + 2L * s.headDim()) + s.hiddenSize();
    assertEquals(s.parameterCount() - vectors, DecodeRoofline.weightBytesPerToken(s, 1));
  }

  @Test
  void tokensPerS_isBandwidthOverBytes() {
    DecodeRoofline roof = DecodeRoofline.of(ModelShape.QWEN25_1_5B, 2, 30.0);
    assertEquals(30e9 / 3_087_138_816L, roof.tokensPerS(), 1e-12);
  }

  @Test
  void new_zeroBandwidthOrBytes_throws() {
    assertThrows(IllegalArgumentException.class, () -> new DecodeRoofline(1, 0));
    assertThrows(IllegalArgumentException.class, () -> new DecodeRoofline(0, 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> DecodeRoofline.weightBytesPerToken(ModelShape.TINY, 0));
  }
}
