package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/** Between the decoder's (T × width) arrays and per-token rows of doubles. */
public final class DeltaArrays {
  private DeltaArrays() {}

  /** The rows of a (T × width) array. */
  public static double[][] rows(NDArray input) {
    int tokens = (int) input.getShape().get(0);
    int width = (int) input.getShape().get(1);
    double[][] rows = new double[tokens][width];
    float[] flat = input.toFloatArray();
    for (int t = 0; t < tokens; t++) {
      for (int j = 0; j < width; j++) {
        rows[t][j] = flat[t * width + j];
      }
    }
    return rows;
  }

  /** {@code rows} (T rows of equal width) as a (T × width) array in {@code manager}. */
  public static NDArray array(double[][] rows, NDManager manager) {
    int width = rows[0].length;
    float[] flat = new float[rows.length * width];
    for (int t = 0; t < rows.length; t++) {
      for (int j = 0; j < width; j++) {
        flat[t * width + j] = (float) rows[t][j];
      }
    }
    return manager.create(flat, new Shape(rows.length, width));
  }
}
