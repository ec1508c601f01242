package io.tensafe.marketplace.apidoc;

import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The OpenAPI schema of a TGSP package's bytes; documentation only, never instantiated. */
@Schema(
    type = SchemaType.STRING,
    format = "binary",
    description = "The TGSP v2 package file, or the requested byte range of it")
public record PackageBytes() {}
