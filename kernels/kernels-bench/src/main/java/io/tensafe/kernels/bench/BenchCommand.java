package io.tensafe.kernels.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./tensafe bench <subcommand>}: quick, readable benchmarks of the kernels' hot paths. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Quick benchmarks of the kernels. For rigorous numbers use `./tensafe bench jmh`.",
    subcommands = {NttBenchCommand.class, HeLoraBenchCommand.class})
public final class BenchCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line with its error handling: a backend that cannot run (no GPU, no kernels)
   * reports one line and exit status 1, not a stack trace.
   */
  static CommandLine commandLine() {
    return new CommandLine(new BenchCommand())
        .setExecutionExceptionHandler(
            (e, commandLine, parseResult) -> {
              if (!(e instanceof IllegalStateException)) {
                throw e;
              }
              commandLine.getErr().println("error: " + e.getMessage());
              return 1;
            });
  }
}
