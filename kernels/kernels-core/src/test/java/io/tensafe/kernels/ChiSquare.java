package io.tensafe.kernels;

/** Pearson's chi-square statistics for the distribution tests. */
public final class ChiSquare {
  /** 0.1% critical value with 2 degrees of freedom (3 buckets). */
  public static final double CRITICAL_2_DOF = 13.8;

  /** 0.1% critical value with 15 degrees of freedom (16 buckets). */
  public static final double CRITICAL_15_DOF = 37.7;

  private ChiSquare() {}

  /** Residues in [0, q) counted in 16 equal buckets (for {@link #CRITICAL_15_DOF}). */
  public static long[] sixteenBuckets(long[] residues, long q) {
    long[] counts = new long[16];
    for (long v : residues) {
      counts[(int) (v / (q / 16 + 1))]++;
    }
    return counts;
  }

  /** The statistic of {@code counts} against equal expected counts in every bucket. */
  public static double againstUniform(long[] counts) {
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    double expected = total / (double) counts.length;
    double statistic = 0;
    for (long c : counts) {
      statistic += (c - expected) * (c - expected) / expected;
    }
    return statistic;
  }

  /** The two-sample statistic: do {@code a} and {@code b} come from one distribution? */
  public static double twoSample(long[] a, long[] b) {
    long na = 0;
    long nb = 0;
    for (int k = 0; k < a.length; k++) {
      na += a[k];
      nb += b[k];
    }
    double statistic = 0;
    for (int k = 0; k < a.length; k++) {
      double pooled = (a[k] + b[k]) / (double) (na + nb);
      statistic +=
          Math.pow(a[k] - na * pooled, 2) / (na * pooled)
              + Math.pow(b[k] - nb * pooled, 2) / (nb * pooled);
    }
    return statistic;
  }
}
