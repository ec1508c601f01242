package io.tensafe.kernels.ckks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.rlwe.Plaintext;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CoefficientEncoderTest {

  private static double[] roundTrip(double[] values, double scale, Parameters p) {
    Plaintext pt = CoefficientEncoder.encode(values, scale, p, p.limbCount());
    pt.poly().toCoefficientsInPlace(p.ntts());
    return CoefficientEncoder.decode(pt, p);
  }

  @Test
  void roundTrip_smallScale_withinHalfOverScale() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(11, List.of(54), 25));
    double[] values = new SplittableRandom(1).doubles(2048, -3, 3).toArray();
    double[] back = roundTrip(values, 0x1p30, p);
    for (int i = 0; i < values.length; i++) {
      assertEquals(values[i], back[i], 0.5 / 0x1p30);
    }
  }

  @Test
  void roundTrip_scaledBeyond2To62_exactOverTwoLimbs() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(12, List.of(54, 54), 25));
    double[] values = new SplittableRandom(2).doubles(4096, -1, 1).toArray();
    double scale = 0x1p100; // every scaled value is an integer double of up to 2^100
    double[] back = roundTrip(values, scale, p);
    for (int i = 0; i < values.length; i++) {
      assertEquals(values[i], back[i], Math.ulp(values[i]), "index " + i);
    }
  }

  @Test
  void encode_overAQuarterOfTheModulus_refused() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(12, List.of(54, 54), 25));
    assertThrows(
        IllegalArgumentException.class,
        () -> CoefficientEncoder.encode(new double[] {1}, 0x1p107, p, 2));
    assertThrows(
        IllegalArgumentException.class,
        () -> CoefficientEncoder.encode(new double[] {1}, 0x1p60, p, 1));
  }
}
