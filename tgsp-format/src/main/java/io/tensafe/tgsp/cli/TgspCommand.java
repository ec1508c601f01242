package io.tensafe.tgsp.cli;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.packaging.EffectMeasurer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./tensafe tgsp}: the creator and operator CLI for TGSP v2 packages.
 *
 * <p>Exit codes: 0 success; 1 the package or an input is invalid (one line on stderr naming the
 * check that failed); 2 bad usage.
 */
@Command(
    name = "tgsp",
    mixinStandardHelpOptions = true,
    version = "tgsp 2.0",
    description = "Create, verify, inspect and open TGSP v2 adapter packages.",
    subcommands = {
      KeygenCommand.class,
      PackCommand.class,
      VerifyCommand.class,
      InspectCommand.class,
      OpenCommand.class,
      ExampleAdapterCommand.class,
      TgspBenchCommand.class
    })
public final class TgspCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the CLI and returns its exit code (for tests). */
  public static int execute(String... args) {
    return execute(EffectMeasurer.UNAVAILABLE, args);
  }

  /**
   * Runs the CLI with {@code measurer} behind {@code pack --model-dir} (the node's tools pass the
   * base model's runtime) and returns its exit code.
   */
  public static int execute(EffectMeasurer measurer, String... args) {
    CommandLine.IFactory defaults = CommandLine.defaultFactory();
    CommandLine.IFactory factory =
        new CommandLine.IFactory() {
          @Override
          @SuppressWarnings("unchecked")
          public <K> K create(Class<K> type) throws Exception {
            return type == PackCommand.class
                ? (K) new PackCommand(measurer)
                : defaults.create(type);
          }
        };
    CommandLine cli = new CommandLine(new TgspCommand(), factory);
    cli.setExecutionExceptionHandler(TgspCommand::report);
    return cli.execute(args);
  }

  private static int report(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
    PrintWriter err = cli.getErr();
    Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
    if (cause instanceof TgspException t) {
      err.println(
          "tgsp "
              + cli.getCommandName()
              + ": FAILED: "
              + t.getClass().getSimpleName()
              + ": "
              + t.getMessage());
      return 1;
    }
    if (cause instanceof IOException || cause instanceof IllegalArgumentException) {
      err.println("tgsp " + cli.getCommandName() + ": error: " + cause.getMessage());
      return 1;
    }
    err.println("tgsp " + cli.getCommandName() + ": internal error: " + cause);
    cause.printStackTrace(err);
    return 3;
  }
}
