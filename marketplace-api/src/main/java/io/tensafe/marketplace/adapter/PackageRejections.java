package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
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
              ProblemKind.PACKAGE_UNKNOWN_SIGNER,
              u.getMessage() + "; register the key first, or it was revoked");
      case SignatureInvalidException s ->
          new ApiProblem(ProblemKind.PACKAGE_SIGNATURE, s.getMessage());
      case TruncatedInputException t ->
          new ApiProblem(ProblemKind.PACKAGE_TRUNCATED, t.getMessage());
      case JsonSchemaException j -> new ApiProblem(ProblemKind.PACKAGE_MANIFEST, j.getMessage());
      case JsonSyntaxException j -> new ApiProblem(ProblemKind.PACKAGE_MANIFEST, j.getMessage());
      default ->
          new ApiProblem(
              ProblemKind.PACKAGE_MALFORMED, e.getClass().getSimpleName() + ": " + e.getMessage());
    };
  }

  static ApiProblem manifest(String detail) {
    return new ApiProblem(ProblemKind.PACKAGE_MANIFEST, detail);
  }
}
