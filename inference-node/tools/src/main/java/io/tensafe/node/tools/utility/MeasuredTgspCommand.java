package io.tensafe.node.tools.utility;

import io.tensafe.tgsp.cli.TgspCommand;

/**
 * {@code ./tensafe tgsp ...} with the node's runtime on the class path: {@code pack --model-dir}
 * measures the adapter's effect retained under its policy ({@link PackEffectMeasurer}) and signs
 * it.
 */
public final class MeasuredTgspCommand {
  private MeasuredTgspCommand() {}

  public static void main(String[] args) {
    System.exit(TgspCommand.execute(new PackEffectMeasurer(), args));
  }
}
