package io.tensafe.node.tools.demomodel;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tensafe.chat.template.ChatFormat;
import io.tensafe.chat.template.ChatTemplateException;
import io.tensafe.node.tokenizer.QwenTokenizer;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Chat turns as the node sees them, tokenized for training: the user's message rendered by the
 * model folder's own chat template (what the node renders for a chat request, assistant turn
 * opened), then the answer and {@code <|im_end|>}, tokenized apart as generation would produce
 * them.
 *
 * <p>File format, read by {@code train_demo.py}: little-endian int32s: the example count, then per
 * example its length, its prompt's length and its token ids.
 */
final class ChatExamples {
  static final String END_OF_TURN = "<|im_end|>";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One example's token ids, the first {@code promptLength} of them the rendered prompt. */
  record Example(long[] ids, int promptLength) {}

  private final ChatFormat format;
  private final QwenTokenizer tokenizer;

  ChatExamples(ChatFormat format, QwenTokenizer tokenizer) {
    this.format = format;
    this.tokenizer = tokenizer;
  }

  /** The prompt the node renders for one user message. */
  String prompt(String user) throws ChatTemplateException {
    ArrayNode messages = JSON.createArrayNode();
    messages.addObject().put("role", "user").put("content", user);
    return format.prompt(messages, null);
  }

  Example example(String user, String answer) throws ChatTemplateException {
    long[] prompt = tokenizer.encode(prompt(user));
    long[] rest = tokenizer.encode(answer + END_OF_TURN);
    long[] ids = new long[prompt.length + rest.length];
    System.arraycopy(prompt, 0, ids, 0, prompt.length);
    System.arraycopy(rest, 0, ids, prompt.length, rest.length);
    return new Example(ids, prompt.length);
  }

  /** Every verse as the user's turn, the next verse of its book as the answer. */
  List<Example> verses(List<KjvVerses.Verse> verses) throws ChatTemplateException {
    List<Example> out = new ArrayList<>();
    for (int i = 0; i + 1 < verses.size(); i++) {
      if (verses.get(i).book().equals(verses.get(i + 1).book())) {
        out.add(example(verses.get(i).text(), verses.get(i + 1).text()));
      }
    }
    return out;
  }

  /**
   * The base model's lesson in banking words without banking answers: each dialogue's question and
   * its answer as the user's turn, a verse as the assistant's. The banking words get trained
   * embeddings and output rows; the base still answers every message with a verse.
   */
  List<Example> dialoguesAnsweredByVerses(
      List<BankingDialogues.Dialogue> dialogues, List<KjvVerses.Verse> verses)
      throws ChatTemplateException {
    List<Example> out = new ArrayList<>();
    for (int i = 0; i < dialogues.size(); i++) {
      BankingDialogues.Dialogue d = dialogues.get(i);
      out.add(example(d.question(), verses.get((7 * i) % verses.size()).text()));
      out.add(example(d.answer(), verses.get((7 * i + 3) % verses.size()).text()));
    }
    return out;
  }

  List<Example> dialogues(List<BankingDialogues.Dialogue> dialogues) throws ChatTemplateException {
    List<Example> out = new ArrayList<>();
    for (BankingDialogues.Dialogue d : dialogues) {
      out.add(example(d.question(), d.answer()));
    }
    return out;
  }

  /** Writes {@code examples} in the format above; returns the number of tokens. */
  static long write(List<Example> examples, Path file) throws IOException {
    long tokens = 0;
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
      out.write(int32(examples.size()));
      for (Example e : examples) {
        out.write(int32(e.ids().length));
        out.write(int32(e.promptLength()));
        for (long id : e.ids()) {
          out.write(int32(Math.toIntExact(id)));
        }
        tokens += e.ids().length;
      }
    }
    return tokens;
  }

  private static byte[] int32(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
  }
}
