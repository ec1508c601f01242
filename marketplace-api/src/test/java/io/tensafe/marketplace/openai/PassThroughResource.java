package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.marketplace.fleet.NodeCall;
import io.tensafe.marketplace.fleet.NodeTarget;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * Test sources only, for {@link GatewayBenchmark}: the marketplace's HTTP stack relaying a node's
 * stream with nothing of the gateway around it (no API key, routing, ledgers, budgets or limits),
 * through the same node client the gateway uses, so that gateway minus pass-through is what
 * metering adds. The node's URL and dispatch token come in headers.
 */
@Path("/bench/pass-through")
@PermitAll
public class PassThroughResource {
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @POST
  public Response relay(
      @HeaderParam("X-Node-Url") String nodeUrl,
      @HeaderParam("X-Node-Token") String token,
      byte[] body)
      throws Exception {
    if (nodeUrl == null || !nodeUrl.matches("http://(127\\.0\\.0\\.1|localhost):[0-9]{1,5}")) {
      return Response.status(400).build(); // the benchmark's node in this JVM only
    }
    NodeTarget target =
        new NodeTarget(
            UUID.randomUUID(), "bench", URI.create(nodeUrl + "/"), true, token, UUID.randomUUID());
    NodeCall call =
        NodeCall.start(http, target, body, Duration.ofSeconds(30), Duration.ofSeconds(30));
    StreamingOutput out =
        o -> {
          try (call) {
            for (JsonNode event = call.next(); event != null; event = call.next()) {
              o.write(("data: " + event + "\n\n").getBytes(StandardCharsets.UTF_8));
              o.flush();
            }
            o.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
            o.flush();
          }
        };
    return Response.ok(out, MediaType.SERVER_SENT_EVENTS).build();
  }
}
