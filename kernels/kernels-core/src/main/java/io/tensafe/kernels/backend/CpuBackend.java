package io.tensafe.kernels.backend;

import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.util.concurrent.atomic.LongAdder;

/** The reference backend: plain Java, one limb after another, on the calling thread. */
public final class CpuBackend implements HeBackend {
  private final LongAdder hostedEncryptNanos = new LongAdder();
  private final LongAdder hostedProductDecryptNanos = new LongAdder();

  /**
   * Time spent so far in {@link #hostedLora}, in nanoseconds: {@code [encrypt, multiply+decrypt]}.
   * Encrypt is the forward NTT of m + e and {@code c0 = NTT(m+e) − c1·s}; multiply+decrypt is the
   * fused pass that forms {@code c0·p} and {@code c1·p} and decrypts them ({@code + (c1·p)·s}) in
   * one loop, then extracts the outputs (or inverse-transforms them).
   */
  public long[] hostedPhaseNanos() {
    return new long[] {hostedEncryptNanos.sum(), hostedProductDecryptNanos.sum()};
  }

  @Override
  public String name() {
    return "cpu";
  }

  @Override
  public void forwardNttInPlace(LimbBatch batch) {
    for (int k = 0; k < batch.size(); k++) {
      batch.tables().get(k).forwardInPlace(batch.limbs()[k]);
    }
  }

  @Override
  public void inverseNttInPlace(LimbBatch batch) {
    for (int k = 0; k < batch.size(); k++) {
      batch.tables().get(k).inverseInPlace(batch.limbs()[k]);
    }
  }

  @Override
  public HostedLoraOutput hostedLora(HostedLoraWeights weights, long[][] messages, long[][] c1) {
    NegacyclicNtt ntt = weights.ntt();
    HostedLoraShapes.check(weights, messages, c1);
    if (ntt.onFmaLanes()) {
      return hostedLoraOnFmaLanes(weights, messages, c1);
    }
    Modulus q = ntt.modulus();
    int n = ntt.degree();
    int plaintexts = weights.plaintextCount();
    int outputs = weights.outputsPerPlaintext();
    boolean extract = weights.extractsOutputs();
    long[] s = weights.secretKey();
    long[] sShoup = weights.secretKeyShoup();
    long[][] residues = new long[messages.length][plaintexts * outputs];
    long[] decrypted = new long[n];
    for (int t = 0; t < messages.length; t++) {
      long[] c0 = messages[t];
      long[] c1t = c1[t];
      long start = System.nanoTime();
      ntt.forwardInPlace(c0);
      for (int i = 0; i < n; i++) {
        c0[i] = q.sub(c0[i], q.mulShoup(c1t[i], s[i], sShoup[i]));
      }
      long encrypted = System.nanoTime();
      hostedEncryptNanos.add(encrypted - start);
      for (int p = 0; p < plaintexts; p++) {
        long[] pt = weights.plaintext(p);
        long[] ptShoup = weights.plaintextShoup(p);
        for (int i = 0; i < n; i++) {
          long product0 = q.mulShoup(c0[i], pt[i], ptShoup[i]); // c0·p
          long product1 = q.mulShoup(c1t[i], pt[i], ptShoup[i]); // c1·p
          decrypted[i] = q.add(product0, q.mulShoup(product1, s[i], sShoup[i])); // + (c1·p)·s
        }
        if (!extract) {
          ntt.inverseInPlace(decrypted);
        }
        for (int b = 0; b < outputs; b++) {
          residues[t][p * outputs + b] =
              extract ? weights.extractor(b).extract(decrypted) : decrypted[weights.position(b)];
        }
      }
      hostedProductDecryptNanos.add(System.nanoTime() - encrypted);
    }
    return output(weights, residues);
  }

  private static HostedLoraOutput output(HostedLoraWeights weights, long[][] residues) {
    long products = (long) residues.length * weights.plaintextCount();
    boolean extract = weights.extractsOutputs();
    return new HostedLoraOutput(
        residues, extract ? 0 : products, extract ? products * weights.outputsPerPlaintext() : 0);
  }

  /** As the 64-bit loops, on lanes of doubles ({@link FmaHostedLora}): primes below 2^50. */
  private HostedLoraOutput hostedLoraOnFmaLanes(
      HostedLoraWeights weights, long[][] messages, long[][] c1) {
    FmaHostedLora lanes = new FmaHostedLora(weights);
    int plaintexts = weights.plaintextCount();
    int outputs = weights.outputsPerPlaintext();
    boolean extract = weights.extractsOutputs();
    long[][] residues = new long[messages.length][plaintexts * outputs];
    for (int t = 0; t < messages.length; t++) {
      long start = System.nanoTime();
      lanes.encrypt(messages[t], c1[t]);
      long encrypted = System.nanoTime();
      hostedEncryptNanos.add(encrypted - start);
      for (int p = 0; p < plaintexts; p++) {
        lanes.multiplyDecrypt(p);
        long[] coefficients = extract ? null : lanes.coefficients();
        for (int b = 0; b < outputs; b++) {
          residues[t][p * outputs + b] =
              extract ? lanes.extract(b) : coefficients[weights.position(b)];
        }
      }
      hostedProductDecryptNanos.add(System.nanoTime() - encrypted);
    }
    return output(weights, residues);
  }
}
