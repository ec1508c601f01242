package io.tensafe.kernels.helora;

/** A site packed with {@link CoefficientLayout}: rank and dimension come from the layout. */
interface CoefficientSite extends PreparedSite {
  CoefficientLayout layout();

  @Override
  default int rank() {
    return layout().rank();
  }

  @Override
  default int dimension() {
    return layout().dimension();
  }
}
