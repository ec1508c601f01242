package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DJL's PyTorch engine runs here offline from the packaged natives (pytorch-native-cpu 2.7.1 with
 * pytorch-jni 2.7.1-0.35.1): nothing is downloaded at run time.
 */
class PyTorchEngineTest {
  @BeforeAll
  static void offline() {
    System.setProperty("ai.djl.offline", "true");
  }

  @Test
  void engine_isPyTorch271OnCpu_andMultipliesExactly() {
    Engine engine = Engine.getEngine("PyTorch");
    assertEquals("2.7.1", engine.getVersion());
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      NDArray a = manager.create(new float[] {1, 2, 3, 4, 5, 6}, new Shape(2, 3));
      NDArray b = manager.create(new float[] {7, 8, 9, 10, 11, 12}, new Shape(3, 2));
      assertArrayEquals(new float[] {58, 64, 139, 154}, a.matMul(b).toFloatArray());
      assertEquals("cpu()", a.getDevice().toString());
    }
  }
}
