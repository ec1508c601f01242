package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.validation.PublicId;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * What a node says about itself when it registers (and again on each heartbeat).
 *
 * @param fleetId the fleet whose private key the node holds
 * @param name unique per node credential, e.g. "node-eu-1"
 * @param baseModels the base models it serves, e.g. ["Qwen/Qwen2.5-0.5B"]
 * @param accelerator "cpu" or "gpu"
 * @param maxConcurrency requests it runs at once, 1..4096
 * @param loadedAdapters adapter ids currently loaded
 * @param url where the node accepts generation requests ({@code http(s)://host:port}); a node
 *     without one is listed but never dispatched to
 * @param dispatchToken the secret (43 characters of base64url, 256 bits) the marketplace must
 *     present as {@code Authorization: Bearer} on each request it sends the node; required with
 *     {@code url}, never shown back
 * @param fleetProof the answer to a fresh registration challenge for this fleet and name: proof
 *     that the node holds the fleet's private key
 * @param modelShape the shape of the model it serves (optional): uploads for its base model are
 *     checked against it
 */
public record NodeRegistration(
    @NotNull @PublicId String fleetId,
    @NotNull @PublicId String name,
    @NotEmpty @Size(max = 32)
        List<@Pattern(regexp = "[A-Za-z0-9][A-Za-z0-9._/-]{0,127}") String> baseModels,
    @NotNull @Pattern(regexp = "cpu|gpu") String accelerator,
    @Min(1) @Max(4096) int maxConcurrency,
    @Size(max = 1024) List<@PublicId String> loadedAdapters,
    @Pattern(regexp = "https?://[^\\s/]{1,200}") String url,
    @Pattern(regexp = "[A-Za-z0-9_-]{43}") String dispatchToken,
    @NotNull @jakarta.validation.Valid FleetProof fleetProof,
    @jakarta.validation.Valid NodeModelShape modelShape) {
  @Override
  public String toString() {
    return "NodeRegistration[" + fleetId + "/" + name + " at " + url + "]";
  }
}
