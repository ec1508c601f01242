package io.tensafe.tgsp.peft;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.Tensor;
import io.tensafe.tgsp.safetensors.TensorInfo;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.SingularOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.SingularValueDecomposition_F64;

/**
 * Replaces each site's {@code s·B·A} by its best rank-K approximation in the Frobenius norm
 * (Eckart–Young), without ever forming the out×in product: with the compact SVD {@code B = U_B W_B
 * V_Bᵀ}, {@code B·A = U_B M} where {@code M = W_B V_Bᵀ A} is r×in, and the SVD {@code M = U Σ Vᵀ}
 * gives the truncation {@code B' = c · U_B U_K Σ_K^½}, {@code A' = Σ_K^½ V_Kᵀ}. The factor {@code c
 * = s(α, r) / s(α, K)} keeps the adapter's effective delta: PEFT will scale the new pair by {@code
 * s(α, K)} (α/K, or α/√K under rsLoRA). Tensors keep their dtype.
 */
public final class RankReducer {
  private RankReducer() {}

  /** A reduced adapter: new tensors and, per site, the retained share of {@code ‖B·A‖_F²}. */
  public record Reduction(AdapterConfig config, List<Tensor> tensors, List<SiteEnergy> energies) {
    public Reduction {
      tensors = List.copyOf(tensors);
      energies = List.copyOf(energies);
    }
  }

  /**
   * Retained energy of one site: {@code Σ_{i≤K} σ_i² / Σ σ_i²}, in [0, 1] (1 for an all-zero site).
   */
  public record SiteEnergy(String site, double retainedEnergy) {
    /** Rounded to 6 decimal places, at least 0.000001, for the manifest. */
    public BigDecimal manifestValue() {
      BigDecimal d = BigDecimal.valueOf(retainedEnergy).setScale(6, RoundingMode.HALF_EVEN);
      return d.signum() > 0 ? d.stripTrailingZeros() : new BigDecimal("0.000001");
    }
  }

  /** Reduces every site of {@code adapter} to rank {@code targetRank} (1 ≤ K < r). */
  public static Reduction reduce(PeftAdapter adapter, SafetensorsFile weights, int targetRank)
      throws IOException, TgspException {
    int rank = adapter.config().rank();
    if (targetRank < 1 || targetRank >= rank) {
      throw new UnsupportedAdapterException(
          "--rank "
              + targetRank
              + " must be in [1, "
              + (rank - 1)
              + "], below the adapter's rank "
              + rank);
    }
    AdapterConfig config = adapter.config();
    double c =
        config.scaling().factor(config.alpha().doubleValue(), rank)
            / config.scaling().factor(config.alpha().doubleValue(), targetRank);
    List<Tensor> tensors = new ArrayList<>();
    List<SiteEnergy> energies = new ArrayList<>();
    for (LoraSite site : adapter.sites()) {
      Tensor a = weights.read(site.a());
      Tensor b = weights.read(site.b());
      int in = (int) site.inFeatures();
      int out = (int) site.outFeatures();
      if (in < rank || out < rank) {
        throw new UnsupportedAdapterException(
            "site "
                + site.site()
                + " is "
                + out
                + "×"
                + in
                + ", smaller than its rank "
                + rank
                + "; rank reduction needs both dimensions ≥ r");
      }
      DMatrixRMaj matrixA = new DMatrixRMaj(rank, in, true, a.values());
      DMatrixRMaj matrixB = new DMatrixRMaj(out, rank, true, b.values());
      // B = U_B W_B V_Bᵀ, so B·A = U_B · M with M = W_B V_Bᵀ A (r × in); then M = U_M Σ V_Mᵀ.
      SingularValueDecomposition_F64<DMatrixRMaj> svdB = svd(matrixB, site.site());
      DMatrixRMaj wvt = new DMatrixRMaj(rank, rank);
      CommonOps_DDRM.multTransB(svdB.getW(null), svdB.getV(null, false), wvt);
      DMatrixRMaj core = new DMatrixRMaj(rank, in);
      CommonOps_DDRM.mult(wvt, matrixA, core);
      SingularValueDecomposition_F64<DMatrixRMaj> svdM = svd(core, site.site());
      DMatrixRMaj u = svdM.getU(null, false);
      DMatrixRMaj w = svdM.getW(null);
      DMatrixRMaj v = svdM.getV(null, false);
      SingularOps_DDRM.descendingOrder(u, false, w, v, false);
      double total = 0;
      double kept = 0;
      DMatrixRMaj uK = new DMatrixRMaj(rank, targetRank);
      DMatrixRMaj vK = new DMatrixRMaj(in, targetRank);
      for (int i = 0; i < w.numRows; i++) {
        double sigma = w.get(i, i);
        total += sigma * sigma;
        if (i < targetRank) {
          kept += sigma * sigma;
          double root = Math.sqrt(sigma);
          for (int row = 0; row < rank; row++) {
            uK.set(row, i, u.get(row, i) * root * c);
          }
          for (int row = 0; row < in; row++) {
            vK.set(row, i, v.get(row, i) * root);
          }
        }
      }
      DMatrixRMaj newB = new DMatrixRMaj(out, targetRank);
      CommonOps_DDRM.mult(svdB.getU(null, false), uK, newB); // c · U_B U_M,K Σ_K^½
      DMatrixRMaj newA = CommonOps_DDRM.transpose(vK, null); // Σ_K^½ V_M,Kᵀ
      tensors.add(retyped(site.a(), List.of((long) targetRank, (long) in), newA));
      tensors.add(retyped(site.b(), List.of((long) out, (long) targetRank), newB));
      energies.add(new SiteEnergy(site.site(), total == 0 ? 1 : kept / total));
    }
    return new Reduction(
        new AdapterConfig(targetRank, config.alpha(), config.scaling(), config.baseModel()),
        tensors,
        energies);
  }

  /** A compact SVD of {@code m} (rows ≥ columns or not), with U and V computed. */
  private static SingularValueDecomposition_F64<DMatrixRMaj> svd(DMatrixRMaj m, String site)
      throws UnsupportedAdapterException {
    SingularValueDecomposition_F64<DMatrixRMaj> svd =
        DecompositionFactory_DDRM.svd(m.numRows, m.numCols, true, true, true);
    if (!svd.decompose(m.copy())) {
      throw new UnsupportedAdapterException("SVD did not converge for site " + site);
    }
    return svd;
  }

  private static Tensor retyped(TensorInfo original, List<Long> shape, DMatrixRMaj values) {
    return Tensor.of(original.name(), original.dtype(), shape, values.getData());
  }
}
