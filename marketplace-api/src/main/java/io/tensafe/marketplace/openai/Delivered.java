package io.tensafe.marketplace.openai;

import java.io.IOException;

/**
 * What a stream passed on to its client so far, in the node's token counts: the text sent stands
 * for {@code completionTokens} generated tokens of a {@code promptTokens}-token prompt. Both 0
 * until the first piece is sent. Thread-confined to the request's thread.
 */
final class Delivered {
  private int promptTokens;
  private int completionTokens;

  /**
   * Records that a piece standing for these counts reached the client.
   *
   * @throws IOException if the node's counts are negative or went backwards (the node is then
   *     treated as failed, and the counts recorded before stand)
   */
  void sent(int promptTokens, int completionTokens) throws IOException {
    if (promptTokens < 0 || completionTokens < this.completionTokens) {
      throw new IOException(
          "the node's token counts went backwards: "
              + completionTokens
              + " after "
              + this.completionTokens);
    }
    this.promptTokens = promptTokens;
    this.completionTokens = completionTokens;
  }

  int promptTokens() {
    return promptTokens;
  }

  int completionTokens() {
    return completionTokens;
  }
}
