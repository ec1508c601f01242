package io.tensafe.chat.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChatFormatTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void read_qwen3Folder_takesItsTemplateAndSpecialTokens() throws Exception {
    Path folder =
        Path.of(
                ChatFormatTest.class
                    .getResource("/io/tensafe/chat/qwen3/tokenizer_config.json")
                    .toURI())
            .getParent();
    ChatFormat format = ChatFormat.read(folder);
    assertEquals("<|im_end|>", format.eosToken());
    assertEquals("", format.bosToken());
    String messages =
        """
        [{"role": "user", "content": "q"},
         {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function",
          "function": {"name": "f", "arguments": "{\\"x\\": [1, 2]}"}}]},
         {"role": "tool", "tool_call_id": "c", "content": "ok"}]""";
    assertEquals(
        "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{\"name\": \"f\","
            + " \"arguments\": {\"x\": [1, 2]}}\n</tool_call><|im_end|>\n<|im_start|>user\n"
            + "<tool_response>\nok\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
        format.prompt(JSON.readTree(messages), null));
  }

  @Test
  void of_configWithoutTemplate_isRefusedByName() {
    ChatTemplateException e =
        assertThrows(
            ChatTemplateException.class,
            () -> ChatFormat.of(JSON.readTree("{\"eos_token\": \"</s>\"}")));
    assertTrue(e.getMessage().contains("no chat_template"), e.getMessage());
  }

  @Test
  void of_namedTemplates_takesTheDefault() throws Exception {
    ChatFormat format =
        ChatFormat.of(
            JSON.readTree(
                """
                {"chat_template": [{"name": "tool_use", "template": "T"},
                                   {"name": "default", "template": "{{ bos_token }}D"}],
                 "bos_token": {"content": "<s>"}}"""));
    assertEquals("<s>D", format.prompt(JSON.readTree("[]"), null));
  }

  @Test
  void read_oversizedConfig_isRefusedBeforeReading(@TempDir Path dir) throws Exception {
    Files.write(
        dir.resolve("tokenizer_config.json"), new byte[(int) ChatFormat.MAX_CONFIG_BYTES + 1]);
    java.io.IOException e = assertThrows(java.io.IOException.class, () -> ChatFormat.read(dir));
    assertTrue(e.getMessage().contains("larger than"), e.getMessage());
  }

  // Review (ADR 0030): a call's arguments with text after the JSON object are not cut to the
  // object; the model is shown what the client sent (as the string it is).
  @Test
  void prompt_argumentsWithTrailingText_areNotCut() throws Exception {
    ChatFormat format =
        ChatFormat.of(
            JSON.readTree(
                "{\"chat_template\": \"{% for m in messages %}{% for c in m.tool_calls %}"
                    + "{{ c.function.arguments | tojson }}{% endfor %}{% endfor %}\"}"));
    String messages =
        "[{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"c\", \"type\":"
            + " \"function\", \"function\": {\"name\": \"f\", \"arguments\":"
            + " \"{\\\"x\\\": 1} and then a long text\"}}]}]";
    assertEquals(
        "\"{\\\"x\\\": 1} and then a long text\"", format.prompt(JSON.readTree(messages), null));
  }
}
