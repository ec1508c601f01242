package io.tensafe.kernels.helora;

/**
 * Computes each LoRA site's {@code A·x} under CKKS encryption.
 *
 * <p>Contract: {@link #prepare} packs and transforms A once per adapter site; {@link #apply} then
 * encrypts each input, multiplies ciphertexts by the prepared plaintexts and decrypts the products.
 * It never decrypts before multiplying, and never multiplies in the clear.
 */
public interface HeLoraOperator {

  /**
   * Packs {@code a} (r rows of d values) for this operator.
   *
   * @throws IllegalArgumentException if A is empty, ragged, not finite, or does not fit the ring
   */
  PreparedSite prepare(double[][] a);

  /**
   * {@code A·x_t} for every input {@code x_t} (each of d values, finite).
   *
   * @throws IllegalArgumentException if an input has the wrong length or a non-finite value, or
   *     {@code site} was prepared by another operator
   */
  HeLoraResult apply(PreparedSite site, double[][] inputs);
}
