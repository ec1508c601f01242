package io.tensafe.kernels.backend;

import io.tensafe.kernels.ring.Modulus;

/** The reference backend: plain Java, one limb after another, on the calling thread. */
public final class CpuBackend implements HeBackend {

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
  public void multiplyInto(LimbBatch a, LimbBatch b, LimbBatch out) {
    a.requireSameShape(b);
    a.requireSameShape(out);
    for (int k = 0; k < a.size(); k++) {
      Modulus q = a.tables().get(k).modulus();
      long[] x = a.limbs()[k];
      long[] y = b.limbs()[k];
      long[] z = out.limbs()[k];
      for (int i = 0; i < x.length; i++) {
        z[i] = q.mul(x[i], y[i]);
      }
    }
  }

  @Override
  public void multiplyAddInto(LimbBatch a, LimbBatch b, LimbBatch c, LimbBatch out) {
    a.requireSameShape(b);
    a.requireSameShape(c);
    a.requireSameShape(out);
    for (int k = 0; k < a.size(); k++) {
      Modulus q = a.tables().get(k).modulus();
      long[] x = a.limbs()[k];
      long[] y = b.limbs()[k];
      long[] w = c.limbs()[k];
      long[] z = out.limbs()[k];
      for (int i = 0; i < x.length; i++) {
        z[i] = q.add(q.mul(x[i], y[i]), w[i]);
      }
    }
  }

  @Override
  public void addInto(LimbBatch a, LimbBatch b, LimbBatch out) {
    a.requireSameShape(b);
    a.requireSameShape(out);
    for (int k = 0; k < a.size(); k++) {
      Modulus q = a.tables().get(k).modulus();
      long[] x = a.limbs()[k];
      long[] y = b.limbs()[k];
      long[] z = out.limbs()[k];
      for (int i = 0; i < x.length; i++) {
        z[i] = q.add(x[i], y[i]);
      }
    }
  }
}
