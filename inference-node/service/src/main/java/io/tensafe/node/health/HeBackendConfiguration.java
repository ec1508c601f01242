package io.tensafe.node.health;

import io.quarkus.logging.Log;
import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.cuda.CudaBackend;
import io.tensafe.kernels.cuda.CudaProbe;
import io.tensafe.kernels.ring.NttImplementation;
import io.tensafe.node.config.NodeConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** Probes CUDA once and produces the node's {@link HeBackendChoice} and its running backend. */
@ApplicationScoped
class HeBackendConfiguration {

  @Produces
  @Singleton
  HeBackendChoice heBackendChoice(NodeConfig config) {
    String requested = config.backend();
    HeBackendChoice choice =
        HeBackendChoice.decide(HeBackendChoice.Requested.parse(requested), CudaProbe.result());
    if (choice.backend().equals("cpu") && !choice.cuda().available()) {
      Log.infof("HE backend: cpu (%s)", choice.cuda().describe());
    } else {
      Log.infof("HE backend: %s (%s)", choice.backend(), choice.cuda().describe());
    }
    Log.infof("CPU NTT: %s", NttImplementation.describeConfigured());
    return choice;
  }

  @Produces
  @Singleton
  HeBackend heBackend(HeBackendChoice choice, NodeConfig config) {
    String requested = config.backend();
    return HeBackendFactory.create(
        choice, HeBackendChoice.Requested.parse(requested), CudaBackend::open);
  }

  void close(@Disposes HeBackend backend) {
    if (backend instanceof CudaBackend cuda) {
      cuda.close();
    }
  }
}
