package io.tensafe.kernels.backend;

import io.tensafe.kernels.ring.FmaLanes;

/**
 * A hosted site's weights as {@link FmaHostedLora} reads them: every residue as its signed double
 * in [-q/2, q/2] beside its quotient {@code fl(v/q)} ({@link FmaLanes#mulMod}). Built once per
 * site, on the first call that needs it; read only after that.
 *
 * @param key the secret key s in NTT form
 * @param keyQuotients its quotients
 * @param plaintexts the P prepared plaintexts in NTT form
 * @param plaintextQuotients their quotients
 * @param extraction the B extraction weight vectors (empty when outputs are not extracted)
 * @param extractionQuotients their quotients
 */
record FmaWeights(
    double[] key,
    double[] keyQuotients,
    double[][] plaintexts,
    double[][] plaintextQuotients,
    double[][] extraction,
    double[][] extractionQuotients) {

  static FmaWeights of(HostedLoraWeights weights) {
    long q = weights.ntt().modulus().value();
    double[] key = FmaLanes.signed(weights.secretKey(), q);
    double[][] plaintexts = new double[weights.plaintextCount()][];
    double[][] plaintextQuotients = new double[plaintexts.length][];
    for (int p = 0; p < plaintexts.length; p++) {
      plaintexts[p] = FmaLanes.signed(weights.plaintext(p), q);
      plaintextQuotients[p] = FmaLanes.quotients(plaintexts[p], q);
    }
    int outputs = weights.extractsOutputs() ? weights.outputsPerPlaintext() : 0;
    double[][] extraction = new double[outputs][];
    double[][] extractionQuotients = new double[outputs][];
    for (int b = 0; b < outputs; b++) {
      extraction[b] = FmaLanes.signed(weights.extractor(b).weights(), q);
      extractionQuotients[b] = FmaLanes.quotients(extraction[b], q);
    }
    return new FmaWeights(
        key,
        FmaLanes.quotients(key, q),
        plaintexts,
        plaintextQuotients,
        extraction,
        extractionQuotients);
  }
}
