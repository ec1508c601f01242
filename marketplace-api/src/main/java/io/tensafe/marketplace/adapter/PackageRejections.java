package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.SignatureInvalidException;
import io.tensafe.tgsp.crypto.UnknownSignerException;
import io.tensafe.tgsp.io.TruncatedInputException;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.json.JsonSyntaxException;

/**
 * Maps each TGSP verification failure to its problem type (422 unless the upload was cut short).
 */
final class PackageRejections {
  private PackageRejections() {}

  static ApiProblem of(TgspException e) {
    return switch (e) {
      case UnknownSignerException u ->
          new ApiProblem(
              ProblemTypes.PACKAGE_UNKNOWN_SIGNER,
              422,
              "Unknown signer",
              u.getMessage() + "; register the key first, or it was revoked");
      case SignatureInvalidException s ->
          new ApiProblem(ProblemTypes.PACKAGE_SIGNATURE, 422, "Invalid signature", s.getMessage());
      case TruncatedInputException t ->
          new ApiProblem(ProblemTypes.PACKAGE_TRUNCATED, 400, "Package truncated", t.getMessage());
      case JsonSchemaException j ->
          new ApiProblem(ProblemTypes.PACKAGE_MANIFEST, 422, "Manifest rejected", j.getMessage());
      case JsonSyntaxException j ->
          new ApiProblem(ProblemTypes.PACKAGE_MANIFEST, 422, "Manifest rejected", j.getMessage());
      default ->
          new ApiProblem(
              ProblemTypes.PACKAGE_MALFORMED,
              422,
              "Malformed package",
              e.getClass().getSimpleName() + ": " + e.getMessage());
    };
  }

  static ApiProblem manifest(String detail) {
    return new ApiProblem(ProblemTypes.PACKAGE_MANIFEST, 422, "Manifest rejected", detail);
  }
}
