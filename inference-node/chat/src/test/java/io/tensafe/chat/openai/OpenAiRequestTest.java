package io.tensafe.chat.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * {@code n}, {@code logprobs} and {@code top_logprobs} as the shared rules read them (ADR 0044).
 */
class OpenAiRequestTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CHAT =
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]";

  private static OpenAiRequest chat(String extra) throws Exception {
    return OpenAiRequest.parse(JSON.readTree(CHAT + extra + "}"), true);
  }

  private static String refusedParam(String extra, boolean chat) {
    String body = chat ? CHAT + extra + "}" : "{\"model\":\"m\",\"prompt\":\"x\"" + extra + "}";
    return assertThrows(
            InvalidRequestException.class, () -> OpenAiRequest.parse(JSON.readTree(body), chat))
        .param();
  }

  @Test
  void choices_defaultOne_upToEight() throws Exception {
    assertEquals(1, chat("").choices());
    assertEquals(8, chat(",\"n\":8").choices());
    assertEquals("n", refusedParam(",\"n\":9", true));
    assertEquals("n", refusedParam(",\"n\":0", true));
    assertEquals("n", refusedParam(",\"n\":\"2\"", true));
    assertEquals(
        3,
        OpenAiRequest.parse(JSON.readTree("{\"model\":\"m\",\"prompt\":\"x\",\"n\":3}"), false)
            .choices());
  }

  @Test
  void logprobs_topLogprobsOnlyWithThem_0To20() throws Exception {
    assertEquals(OpenAiRequest.NO_LOGPROBS, chat("").logprobs());
    assertEquals(0, chat(",\"logprobs\":true").logprobs());
    assertEquals(5, chat(",\"logprobs\":true,\"top_logprobs\":5").logprobs());
    // The no-op clients send stays accepted.
    assertEquals(
        OpenAiRequest.NO_LOGPROBS, chat(",\"logprobs\":false,\"top_logprobs\":0").logprobs());
    assertEquals("top_logprobs", refusedParam(",\"top_logprobs\":5", true));
    assertEquals("top_logprobs", refusedParam(",\"logprobs\":true,\"top_logprobs\":21", true));
    assertEquals("top_logprobs", refusedParam(",\"logprobs\":true,\"top_logprobs\":1.5", true));
    assertEquals("logprobs", refusedParam(",\"logprobs\":1", true));
    assertEquals(
        "logprobs",
        refusedParam(
            ",\"logprobs\":true,\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]",
            true));
    // Legacy completions keep their no-op logprobs only.
    assertEquals("logprobs", refusedParam(",\"logprobs\":5", false));
  }
}
