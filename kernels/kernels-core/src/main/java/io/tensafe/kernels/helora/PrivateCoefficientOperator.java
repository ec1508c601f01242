package io.tensafe.kernels.helora;

import io.tensafe.kernels.rlwe.Ciphertext;
import java.security.SecureRandom;
import java.util.List;

/**
 * Private mode as one {@link HeLoraOperator}, for tests and benchmarks: a {@link PrivateClient} and
 * a {@link PrivateNodeOperator} in one process, exchanging only what they would exchange over the
 * wire (the public key, input ciphertexts, masked product ciphertexts).
 */
public final class PrivateCoefficientOperator implements HeLoraOperator {
  private final PrivateClient client;
  private final PrivateNodeOperator node;

  public PrivateCoefficientOperator(int dimension, SecureRandom random) {
    this.client = new PrivateClient(PrivateClient.parametersFor(dimension), random);
    this.node = new PrivateNodeOperator(client.publicKey(), random);
  }

  public PrivateClient client() {
    return client;
  }

  public PrivateNodeOperator node() {
    return node;
  }

  @Override
  public PreparedSite prepare(double[][] a) {
    return node.prepare(a);
  }

  @Override
  public HeLoraResult apply(PreparedSite site, double[][] inputs) {
    if (!(site instanceof PrivateNodeOperator.Site prepared)) {
      throw new IllegalArgumentException("site was prepared by another operator");
    }
    CoefficientLayout layout = prepared.layout();
    double[][] outputs = new double[inputs.length][];
    for (int t = 0; t < inputs.length; t++) {
      RowChecks.maxAbs(inputs[t], layout.dimension(), t);
      List<Ciphertext> products = node.apply(site, client.encryptInput(inputs[t]));
      outputs[t] = client.decryptOutputs(products, layout);
    }
    long products = (long) inputs.length * layout.plaintextCount();
    int limbs = client.parameters().limbCount();
    // Per product: u, e0 + M and e1 are taken to NTT form over every limb.
    long forward = inputs.length * (long) limbs + products * 3L * limbs;
    long extractions = (long) inputs.length * layout.rank() * limbs;
    return new HeLoraResult(
        outputs,
        new OperationCounts(inputs.length + products, products, products, forward, 0, extractions));
  }
}
