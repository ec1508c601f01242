package io.tensafe.marketplace.problem;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.util.stream.Collectors;

/**
 * Says what is wrong with a JSON body, and where: malformed JSON by line and column, a value of the
 * wrong type by its field path, an empty body, a value beyond the parser's limits. Always 400.
 */
public final class JsonProblems {
  private JsonProblems() {}

  /** The 400 problem for {@code e}, raised while reading a request body. */
  public static ApiProblem of(JsonProcessingException e) {
    String at = where(e.getLocation());
    String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    if (e instanceof StreamConstraintsException) {
      return ProblemTypes.validation(
          "the JSON body is beyond the parser's limits" + at + ": " + original);
    }
    if (e instanceof MismatchedInputException && original.startsWith("No content to map")) {
      return ProblemTypes.validation("the body is empty; send a JSON object");
    }
    if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
      String field = path(m);
      return ProblemTypes.validation(
          field,
          "field '" + field + "' has the wrong type or value" + at + ": " + firstLine(original));
    }
    if (original.contains("Invalid UTF-8")) {
      return ProblemTypes.validation("the body is not valid UTF-8" + at);
    }
    return ProblemTypes.validation("malformed JSON" + at + ": " + firstLine(original));
  }

  /** {@code " at line L, column C"}, or empty when the parser gave no location. */
  public static String where(JsonLocation location) {
    if (location == null || location.getLineNr() < 1) {
      return "";
    }
    return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  private static String path(JsonMappingException m) {
    return m.getPath().stream()
        .map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining())
        .replaceFirst("^\\.", "");
  }

  private static String firstLine(String s) {
    int n = s.indexOf('\n');
    return n < 0 ? s : s.substring(0, n);
  }
}
