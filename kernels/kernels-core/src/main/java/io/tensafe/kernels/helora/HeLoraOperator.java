package io.tensafe.kernels.helora;

import java.util.ArrayList;
import java.util.List;

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

  /**
   * {@link #apply} for several (site, inputs) requests, results in request order; an operator may
   * run them as one unit of backend work. This default applies them one after another.
   *
   * @throws IllegalArgumentException as {@link #apply}, for the first bad request; then no result
   *     is returned for any
   */
  default List<HeLoraResult> applyAll(List<SiteInputs> requests) {
    List<HeLoraResult> results = new ArrayList<>(requests.size());
    for (SiteInputs request : requests) {
      results.add(apply(request.site(), request.inputs()));
    }
    return results;
  }

  /** One request of {@link #applyAll}: a prepared site and the inputs for it. */
  record SiteInputs(PreparedSite site, double[][] inputs) {}
}
