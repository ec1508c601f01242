package io.tensafe.marketplace.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes manifests under {@code deploy/kubernetes} (issue 24), read into fabric8's typed
 * Kubernetes model: every object is a kind and API version the model knows, no field is unknown to
 * it (a misspelt field would land in an "additional properties" map), and the objects fit together:
 * selectors match pod labels, probes hit the health checks on declared ports, Services, the Ingress
 * and PodDisruptionBudgets point at what exists, every environment variable is one the application
 * reads, secrets and claims made outside are the ones the README lists, and the GPU pool asks for
 * the NVIDIA device plugin's {@code nvidia.com/gpu}. No cluster is needed.
 */
class KubernetesManifestsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path MANIFESTS = ROOT.resolve("deploy/kubernetes");

  /** Made by the operator before applying the manifests, as README.md says. */
  private static final Set<String> EXTERNAL =
      Set.of(
          "tensafe-database",
          "tensafe-oidc",
          "tensafe-node-client",
          "tensafe-fleet-key",
          "tensafe-marketplace-tls",
          "tensafe-node-tls",
          "tensafe-node-ca",
          "tensafe-models");

  /**
   * Variables the frameworks read (Quarkus' settings, the JVM's options, and OpenMP's wait policy,
   * which PyTorch's native threads under DJL read), beside our own.
   */
  private static boolean frameworkVariable(String name) {
    return name.startsWith("QUARKUS_")
        || name.equals("JAVA_TOOL_OPTIONS")
        || name.equals("OMP_WAIT_POLICY");
  }

  private static List<HasMetadata> objects() throws Exception {
    List<HasMetadata> all = new ArrayList<>();
    try (Stream<Path> files = Files.list(MANIFESTS)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        for (String doc : Files.readString(file).split("(?m)^---$")) {
          if (doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
            continue;
          }
          Object parsed = Serialization.unmarshal(doc);
          assertTrue(
              parsed instanceof HasMetadata && !(parsed instanceof GenericKubernetesResource),
              file.getFileName() + ": a kind the Kubernetes model does not know:\n" + doc);
          all.add((HasMetadata) parsed);
        }
      }
    }
    return all;
  }

  private static <T> List<T> of(List<HasMetadata> all, Class<T> type) {
    return all.stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Test
  void everyFieldIsOneTheKubernetesModelKnows() throws Exception {
    List<HasMetadata> all = objects();
    assertTrue(all.size() >= 10, "the manifests: " + all.size() + " objects");
    for (HasMetadata o : all) {
      List<String> unknown = new ArrayList<>();
      unknownFields(
          o, o.getKind() + "/" + o.getMetadata().getName(), unknown, new IdentityHashMap<>());
      assertEquals(List.of(), unknown, "fields the model does not know");
      assertTrue(
          "tensafe".equals(o.getMetadata().getLabels().get("app.kubernetes.io/part-of")),
          o.getKind() + "/" + o.getMetadata().getName() + " is labelled part-of tensafe");
    }
  }

  /** Collects every non-empty additional-properties map reachable from {@code value}. */
  private static void unknownFields(
      Object value, String path, List<String> unknown, IdentityHashMap<Object, Boolean> seen)
      throws Exception {
    if (value == null
        || value instanceof String
        || value instanceof Number
        || value instanceof Boolean
        || value instanceof Enum<?>
        || seen.put(value, true) != null) {
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        unknownFields(item, path + "[" + i++ + "]", unknown, seen);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      for (var e : map.entrySet()) {
        unknownFields(e.getValue(), path + "." + e.getKey(), unknown, seen);
      }
      return;
    }
    if (!value.getClass().getPackageName().startsWith("io.fabric8")) {
      return;
    }
    for (Method m : value.getClass().getMethods()) {
      if (m.getParameterCount() != 0
          || !m.getName().startsWith("get")
          || m.getName().equals("getClass")) {
        continue;
      }
      Object child = m.invoke(value);
      if (m.getName().equals("getAdditionalProperties")) {
        if (child instanceof Map<?, ?> extra && !extra.isEmpty()) {
          unknown.add(path + ": " + extra.keySet());
        }
        continue;
      }
      unknownFields(child, path + "." + m.getName().substring(3), unknown, seen);
    }
  }

  /**
   * Issue 36: every pod runs as the images' non-root user with the runtime's default seccomp
   * profile, every container without privilege escalation, capabilities or a writable root file
   * system (a writable {@code /tmp} volume instead), from an image tagged with the release line the
   * build tags (never {@code -SNAPSHOT}); and a NetworkPolicy lets only the marketplace (and
   * Prometheus) reach the nodes.
   */
  @Test
  void podsRunLockedDown_fromReleaseTags_andOnlyTheMarketplaceReachesNodes() throws Exception {
    List<HasMetadata> all = objects();
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    String tag = pom.replaceAll("(?s).*<tensafe.image.tag>([^<]+)</tensafe.image.tag>.*", "$1");
    assertFalse(tag.contains("SNAPSHOT"), tag);
    for (Workload w : workloads(all)) {
      var pod = w.template().getSpec().getSecurityContext();
      assertNotNull(pod, w.name() + ": a pod security context");
      assertEquals(Boolean.TRUE, pod.getRunAsNonRoot(), w.name());
      assertEquals(10001L, pod.getRunAsUser(), w.name() + ": the images' user");
      assertEquals("RuntimeDefault", pod.getSeccompProfile().getType(), w.name());
      for (Container c : w.template().getSpec().getContainers()) {
        String where = w.name() + "/" + c.getName();
        var sc = c.getSecurityContext();
        assertNotNull(sc, where + ": a container security context");
        assertEquals(Boolean.FALSE, sc.getAllowPrivilegeEscalation(), where);
        assertEquals(Boolean.TRUE, sc.getReadOnlyRootFilesystem(), where);
        assertEquals(List.of("ALL"), sc.getCapabilities().getDrop(), where);
        assertTrue(
            c.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/tmp")),
            where + ": a writable /tmp");
        assertTrue(
            c.getImage().endsWith(":" + tag), where + ": tagged " + tag + ", " + c.getImage());
      }
    }
    var policies =
        of(all, io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class).stream()
            .filter(
                n ->
                    "tensafe-node"
                        .equals(
                            n.getSpec()
                                .getPodSelector()
                                .getMatchLabels()
                                .get("app.kubernetes.io/name")))
            .toList();
    assertEquals(1, policies.size(), "one policy for the nodes' ingress");
    var from = policies.getFirst().getSpec().getIngress().getFirst().getFrom();
    assertTrue(
        from.stream()
            .anyMatch(
                peer ->
                    peer.getNamespaceSelector() == null
                        && "tensafe-marketplace"
                            .equals(
                                peer.getPodSelector()
                                    .getMatchLabels()
                                    .get("app.kubernetes.io/name"))),
        "the marketplace reaches the nodes");
    assertTrue(
        from.stream()
            .allMatch(
                peer ->
                    peer.getPodSelector() != null
                        && !peer.getPodSelector().getMatchLabels().isEmpty()),
        "no peer is 'every pod'");
  }

  private record Workload(String name, Map<String, String> selector, PodTemplateSpec template) {}

  private static List<Workload> workloads(List<HasMetadata> all) {
    List<Workload> w = new ArrayList<>();
    for (Deployment d : of(all, Deployment.class)) {
      w.add(
          new Workload(
              d.getMetadata().getName(),
              d.getSpec().getSelector().getMatchLabels(),
              d.getSpec().getTemplate()));
    }
    for (StatefulSet s : of(all, StatefulSet.class)) {
      w.add(
          new Workload(
              s.getMetadata().getName(),
              s.getSpec().getSelector().getMatchLabels(),
              s.getSpec().getTemplate()));
    }
    return w;
  }

  private static boolean selects(Map<String, String> selector, PodTemplateSpec pod) {
    return !selector.isEmpty()
        && pod.getMetadata().getLabels().entrySet().containsAll(selector.entrySet());
  }

  /** The configuration variables an application reads, from its application.properties. */
  private static Set<String> variablesReadBy(String module) throws Exception {
    String properties =
        Files.readString(ROOT.resolve(module).resolve("src/main/resources/application.properties"));
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\$\\{(TENSAFE_[A-Z0-9_]+)").matcher(properties);
    Set<String> names = new java.util.HashSet<>();
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  @Test
  void workloads_probeTheHealthChecks_requestResources_andReadOnlyVariablesTheAppsKnow()
      throws Exception {
    List<HasMetadata> all = objects();
    Map<String, ConfigMap> configMaps = new java.util.HashMap<>();
    of(all, ConfigMap.class).forEach(c -> configMaps.put(c.getMetadata().getName(), c));
    Set<String> claims = new java.util.HashSet<>(EXTERNAL);
    of(all, PersistentVolumeClaim.class).forEach(c -> claims.add(c.getMetadata().getName()));
    List<Workload> workloads = workloads(all);
    assertEquals(3, workloads.size(), "the marketplace and two node pools");
    for (Workload w : workloads) {
      assertTrue(selects(w.selector(), w.template()), w.name() + ": the selector matches its pods");
      Set<String> known =
          variablesReadBy(
              w.name().startsWith("tensafe-marketplace")
                  ? "marketplace-api"
                  : "inference-node/service");
      for (Container c : w.template().getSpec().getContainers()) {
        String where = w.name() + "/" + c.getName();
        assertNotNull(c.getImage(), where + ": an image");
        assertTrue(c.getImage().startsWith("tensafe/"), where + ": one of the images we build");
        var requests = c.getResources().getRequests();
        assertTrue(
            requests.containsKey("cpu") && requests.containsKey("memory"),
            where + ": CPU and memory requests");
        Set<String> ports = new java.util.HashSet<>();
        c.getPorts().forEach(p -> ports.add(p.getName()));
        checkProbe(where, c.getReadinessProbe(), "/q/health/ready", ports);
        checkProbe(where, c.getLivenessProbe(), "/q/health/live", ports);
        for (EnvFromSource from : c.getEnvFrom()) {
          ConfigMap map = configMaps.get(from.getConfigMapRef().getName());
          assertNotNull(map, where + ": its ConfigMap " + from.getConfigMapRef().getName());
          for (String name : map.getData().keySet()) {
            assertTrue(
                known.contains(name) || frameworkVariable(name),
                where + ": " + name + " is not read by the app");
          }
        }
        for (EnvVar v : c.getEnv()) {
          assertTrue(
              known.contains(v.getName())
                  || frameworkVariable(v.getName())
                  || List.of("POD_NAME", "NODE_CA_PASSWORD").contains(v.getName()),
              where + ": " + v.getName() + " is not read by the app");
          if (v.getValueFrom() != null && v.getValueFrom().getSecretKeyRef() != null) {
            String secret = v.getValueFrom().getSecretKeyRef().getName();
            assertTrue(EXTERNAL.contains(secret), where + ": secret " + secret + " is listed");
          }
        }
      }
      for (Volume v : w.template().getSpec().getVolumes()) {
        if (v.getSecret() != null) {
          assertTrue(EXTERNAL.contains(v.getSecret().getSecretName()), v.getName());
        }
        if (v.getPersistentVolumeClaim() != null) {
          assertTrue(claims.contains(v.getPersistentVolumeClaim().getClaimName()), v.getName());
        }
      }
    }
    String readme = Files.readString(ROOT.resolve("README.md"));
    for (String external : EXTERNAL) {
      assertTrue(readme.contains(external), "README.md says to create " + external);
    }
  }

  private static void checkProbe(String where, Probe probe, String path, Set<String> ports) {
    assertNotNull(probe, where + ": a probe for " + path);
    assertEquals(path, probe.getHttpGet().getPath(), where);
    assertTrue(
        ports.contains(probe.getHttpGet().getPort().getStrVal()),
        where + ": the probe's port is declared");
  }

  @Test
  void servicesIngressAndBudgets_pointAtWhatExists_andTheGpuPoolAsksForGpus() throws Exception {
    List<HasMetadata> all = objects();
    List<Workload> workloads = workloads(all);
    Map<String, Service> services = new java.util.HashMap<>();
    for (Service s : of(all, Service.class)) {
      services.put(s.getMetadata().getName(), s);
      List<Workload> selected =
          workloads.stream().filter(w -> selects(s.getSpec().getSelector(), w.template())).toList();
      assertFalse(selected.isEmpty(), s.getMetadata().getName() + " selects pods");
      for (var port : s.getSpec().getPorts()) {
        for (Workload w : selected) {
          assertTrue(
              w.template().getSpec().getContainers().stream()
                  .anyMatch(
                      c ->
                          c.getPorts().stream()
                              .anyMatch(p -> p.getName().equals(port.getTargetPort().getStrVal()))),
              s.getMetadata().getName() + " targets a declared port of " + w.name());
        }
      }
    }
    List<Ingress> ingresses = of(all, Ingress.class);
    assertEquals(1, ingresses.size(), "the marketplace's Ingress");
    for (var rule : ingresses.getFirst().getSpec().getRules()) {
      for (var path : rule.getHttp().getPaths()) {
        var backend = path.getBackend().getService();
        Service target = services.get(backend.getName());
        assertNotNull(target, "the Ingress's Service " + backend.getName());
        assertTrue(
            target.getSpec().getPorts().stream()
                .anyMatch(p -> p.getName().equals(backend.getPort().getName())),
            "the Ingress names a port of its Service");
      }
    }
    List<PodDisruptionBudget> budgets = of(all, PodDisruptionBudget.class);
    assertTrue(budgets.size() >= 2, "budgets for the marketplace and the nodes");
    for (PodDisruptionBudget b : budgets) {
      assertTrue(
          workloads.stream()
              .anyMatch(w -> selects(b.getSpec().getSelector().getMatchLabels(), w.template())),
          b.getMetadata().getName() + " selects pods");
    }
    Workload gpu =
        workloads.stream()
            .filter(
                w ->
                    w.template().getSpec().getContainers().stream()
                        .anyMatch(
                            c ->
                                c.getResources().getLimits() != null
                                    && c.getResources().getLimits().containsKey("nvidia.com/gpu")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("a pool that asks for nvidia.com/gpu"));
    var spec = gpu.template().getSpec();
    assertFalse(spec.getNodeSelector().isEmpty(), "the GPU pool is scheduled on GPU machines");
    assertTrue(
        spec.getTolerations().stream().anyMatch(t -> "nvidia.com/gpu".equals(t.getKey())),
        "and tolerates their taint");
    assertTrue(
        spec.getContainers().getFirst().getEnv().stream()
            .anyMatch(
                e -> e.getName().equals("TENSAFE_NODE_BACKEND") && "cuda".equals(e.getValue())),
        "and runs the CUDA backend");
    Deployment marketplace = of(all, Deployment.class).getFirst();
    assertTrue(marketplace.getSpec().getReplicas() >= 2, "several marketplace replicas");
    ConfigMap settings =
        of(all, ConfigMap.class).stream()
            .filter(c -> c.getMetadata().getName().equals("tensafe-marketplace"))
            .findFirst()
            .orElseThrow();
    assertEquals(
        "production",
        settings.getData().get("QUARKUS_PROFILE"),
        "the marketplace runs the production profile");
    for (StatefulSet nodes : of(all, StatefulSet.class)) {
      assertTrue(
          nodes.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
              .anyMatch(
                  e ->
                      e.getName().equals("TENSAFE_NODE_PUBLIC_URL")
                          && e.getValue().startsWith("https://")),
          nodes.getMetadata().getName() + " registers an https endpoint, as production requires");
    }
  }
}
