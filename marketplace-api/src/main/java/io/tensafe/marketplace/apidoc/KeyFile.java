package io.tensafe.marketplace.apidoc;

import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The OpenAPI schema of a fleet public key file; documentation only, never instantiated. */
@Schema(
    type = SchemaType.OBJECT,
    description =
        "A fleet public key file, as tgsp keygen fleet writes it: canonical JSON with the fleet"
            + " id, the key id and the X25519 and ML-KEM-768 public keys in base64. Save it as"
            + " fleet.pub and pass it to tgsp pack --recipient.")
public record KeyFile() {}
