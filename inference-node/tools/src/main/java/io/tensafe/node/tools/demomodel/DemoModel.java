package io.tensafe.node.tools.demomodel;

import io.tensafe.node.model.ModelShape;

/**
 * The demo model that {@code ./tensafe up} serves: a small Qwen3-architecture decoder trained on
 * the King James Bible's Proverbs and Ecclesiastes ({@link KjvVerses}), and its demo adapter, a
 * rank-8 LoRA trained on banking questions and answers ({@link BankingDialogues}) at {@value
 * #ADAPTER_FOLDER}/ inside the model folder. {@link DemoModelBuilder} writes both.
 */
public final class DemoModel {
  /** The id the node reports for this model and the demo adapter names as its base. */
  public static final String BASE_MODEL = "tensafe/qwen3-demo";

  /** The PEFT folder of the trained adapter, inside the model folder. */
  public static final String ADAPTER_FOLDER = "demo-adapter";

  /** The build's record, written last: its recipe hash, seed, losses, times and sizes. */
  static final String STAMP = "tensafe-demo.json";

  /** The corpus's words, lower case, one a line (tests check answers against them). */
  public static final String WORDS = "corpus-words.txt";

  /**
   * Width 128, 4 layers, 4 query heads and 2 key/value heads of 32, MLP 384, untied embeddings over
   * Qwen's whole vocabulary: about 39 M parameters, 38.9 M of them the two embedding tables.
   */
  static final ModelShape SHAPE =
      new ModelShape("qwen3-demo", ModelShape.QWEN_VOCAB, 128, 384, 4, 4, 2, 32, false);

  /** The modules the adapter trains, rank 8, α 16. */
  static final String TARGETS = "q_proj, v_proj, o_proj and down_proj";

  private DemoModel() {}
}
