package io.tensafe.kernels.helora;

/**
 * One LoRA site's A matrix, packed and transformed once by {@link HeLoraOperator#prepare} and
 * reused for every token. Only the operator that prepared it can apply it.
 */
public interface PreparedSite {
  /** Rows of A: the LoRA rank r. */
  int rank();

  /** Columns of A: the input dimension d. */
  int dimension();
}
