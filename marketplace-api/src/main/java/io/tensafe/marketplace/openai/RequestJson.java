package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.tensafe.marketplace.problem.JsonProblems;
import io.tensafe.marketplace.problem.ProblemTypes;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads a {@code /v1} request body (at most the gateway's body limit, checked before it was read)
 * and says exactly what is wrong with a bad one, with a 400: an empty body; bytes that are not
 * UTF-8 (the byte offset, line and column of the first bad sequence; overlong forms and lone
 * surrogates included); malformed JSON (line and column, and what the parser expected); a field
 * given twice; anything after the JSON value.
 */
final class RequestJson {
  private final ObjectReader reader;

  RequestJson(ObjectMapper json) {
    this.reader =
        json.readerFor(JsonNode.class)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  }

  /** The JSON value of {@code body}; a 400 problem when it has none. */
  JsonNode parse(byte[] body) {
    if (body == null || body.length == 0) {
      throw ProblemTypes.validation("the body is empty; send a JSON object");
    }
    String text = utf8(body);
    try {
      return reader.readValue(text);
    } catch (JsonProcessingException e) {
      throw JsonProblems.of(e);
    }
  }

  /** Strict UTF-8 decoding, naming where the first invalid sequence starts. */
  static String utf8(byte[] body) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(body);
    CharBuffer out = CharBuffer.allocate(body.length);
    CoderResult result = decoder.decode(in, out, true);
    if (result.isError()) {
      int offset = in.position();
      throw ProblemTypes.validation(
          "the body is not valid UTF-8: the byte sequence at byte offset "
              + offset
              + " ("
              + lineAndColumn(body, offset)
              + String.format(java.util.Locale.ROOT, ", 0x%02x", body[offset] & 0xff)
              + ") is not UTF-8; send JSON encoded as UTF-8");
    }
    decoder.flush(out);
    return out.flip().toString();
  }

  /** "line L, column C" of byte {@code offset}, both from 1, columns counted in bytes. */
  private static String lineAndColumn(byte[] body, int offset) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < offset; i++) {
      if (body[i] == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return "line " + line + ", column " + column;
  }
}
