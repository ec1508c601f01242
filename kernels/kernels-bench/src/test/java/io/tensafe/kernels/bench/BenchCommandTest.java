package io.tensafe.kernels.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The bench commands' interface: output shape and argument checks. Nothing here is timed. */
class BenchCommandTest {

  private record Result(int exitCode, String out, String err) {}

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = BenchCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    PrintStream previous = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      int code = cli.execute(args);
      return new Result(code, out + captured.toString(StandardCharsets.UTF_8), err.toString());
    } finally {
      System.setOut(previous);
    }
  }

  @Test
  void ntt_json_printsOneObjectWithTheDocumentedKeys() {
    Result result = run("ntt", "--log-n", "11", "--bits", "40", "--seconds", "0", "--json");
    assertEquals(0, result.exitCode(), result.err());
    String line = result.out().strip();
    assertTrue(
        line.matches(
            "\\{\"log_n\":11,\"prime_bits\":40,\"implementation\":\"vector\","
                + "\"arithmetic\":\"fma-double\",\"lanes\":(4|8),\"forward_us\":[0-9.]+,\"inverse_us\":[0-9.]+,\"threads\":1}"),
        line);
  }

  @Test
  void ntt_both_timesScalarAndVectorInOneRun() {
    Result result =
        run("ntt", "--log-n", "11", "--seconds", "0", "--implementation", "both", "--json");
    assertEquals(0, result.exitCode(), result.err());
    String[] lines = result.out().strip().split("\n");
    assertEquals(2, lines.length, result.out());
    assertTrue(lines[0].contains("\"implementation\":\"scalar\""), lines[0]);
    assertTrue(lines[1].contains("\"implementation\":\"vector\""), lines[1]);
  }

  @Test
  void ntt_unknownImplementation_isAUsageError() {
    Result result = run("ntt", "--implementation", "gpu", "--seconds", "0");
    assertEquals(2, result.exitCode());
    assertTrue(result.err().contains("--implementation must be"), result.err());
  }

  @Test
  void ntt_batchedOnCpu_printsNttsPerSecondPerBatch() {
    Result result = run("ntt", "--log-n", "11", "--batch", "1,4", "--seconds", "0", "--json");
    assertEquals(0, result.exitCode(), result.err());
    String[] lines = result.out().strip().split("\n");
    assertEquals(2, lines.length, result.out());
    assertTrue(
        lines[1].matches(
            "\\{\"backend\":\"cpu\",\"log_n\":11,\"prime_bits\":50,\"implementation\":\"vector\","
                + "\"arithmetic\":\"fma-double\",\"lanes\":(4|8),\"batch\":4,"
                + "\"forward_ntts_per_s\":[0-9]+,\"inverse_ntts_per_s\":[0-9]+,"
                + "\"forward_with_transfers_ntts_per_s\":[0-9]+,\"device\":\"1 thread\"}"),
        lines[1]);
  }

  @Test
  void heLora_cudaWithoutGpu_failsNamingTheReason() {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        io.tensafe.kernels.cuda.CudaProbe.result().available(), "this machine has a GPU");
    Result result = run("he-lora", "--backend", "cuda", "--dim", "256", "--seconds", "0");
    assertEquals(1, result.exitCode());
    assertTrue(result.err().startsWith("error: CUDA unavailable: "), result.err());
    assertTrue(!result.err().contains("\tat "), "no stack trace: " + result.err());
  }

  @Test
  void ntt_logNOutOfRange_failsWithUsageError() {
    Result result = run("ntt", "--log-n", "9");
    assertEquals(2, result.exitCode());
    assertTrue(result.err().contains("--log-n must be in 11..16, was 9"), result.err());
  }

  @Test
  void heLora_json_printsTheDocumentedKeysWithPrecisionMet() {
    Result result = run("he-lora", "--dim", "256", "--rank", "4", "--seconds", "0", "--json");
    assertEquals(0, result.exitCode(), result.err());
    String line = result.out().strip();
    assertTrue(
        line.matches(
            "\\{\"dim\":256,\"rank\":4,\"packing\":\"coefficient\",\"mode\":\"hosted\","
                + "\"ring_degree\":2048,\"limbs\":1,\"implementation\":\"vector\","
                + "\"arithmetic\":\"fma-double\",\"lanes\":(4|8),\"batch\":1,\"he_ms_per_token\":[0-9.]+,"
                + "\"plain_ms_per_token\":[0-9.]+,\"max_rel_error\":[0-9.e+-]+,\"threads\":1,"
                + "\"backend\":\"cpu\",\"us_per_token_per_site\":[0-9.]+,"
                + "\"backend_call_us_per_token\":[0-9.]+,\"device\":\"cpu\"}"),
        line);
    double error = Double.parseDouble(line.replaceAll(".*\"max_rel_error\":([^,]+),.*", "$1"));
    assertTrue(error <= 1e-4, line);
  }

  @Test
  void heLora_unknownPacking_failsWithUsageError() {
    Result result = run("he-lora", "--packing", "diagonal");
    assertEquals(2, result.exitCode());
    assertTrue(result.err().contains("--packing"), result.err());
  }

  @Test
  void heLora_slotPackingInPrivateMode_refusedWithReason() {
    Result result = run("he-lora", "--packing", "slot", "--mode", "private");
    assertEquals(2, result.exitCode());
    assertTrue(result.err().contains("slot packing is hosted-only"), result.err());
  }

  @Test
  void heLora_privateMode_reportsBothRoundsAndTheirBytes() {
    Result result =
        run(
            "he-lora",
            "--dim",
            "64",
            "--rank",
            "4",
            "--mode",
            "private",
            "--seconds",
            "0",
            "--json");
    assertEquals(0, result.exitCode(), result.err());
    for (String field :
        List.of(
            "\"node_round_one_us_per_token\":",
            "\"node_round_two_us_per_token\":",
            "\"round_one_bytes_down\":",
            "\"round_two_bytes_down\":",
            "\"bytes_per_token\":")) {
      assertTrue(result.out().contains(field), result.out());
    }
    double error =
        Double.parseDouble(
            result.out().replaceAll(".*\"max_rel_error\":([0-9.eE+-]+).*\\s*", "$1"));
    assertTrue(error > 0 && error < 1e-4, "max_rel_error " + error);
  }

  @Test
  void stopwatch_badArguments_refused() {
    assertThrows(IllegalArgumentException.class, () -> new Stopwatch(0, 0, 1));
  }

  @Test
  void stopwatch_countsCalls_returnsPositiveMedian() {
    int[] calls = new int[1];
    double median = new Stopwatch(0, 3, 1).medianNanosPerCall(() -> calls[0]++);
    assertTrue(median > 0);
    assertTrue(calls[0] >= 4, "warm-up plus three rounds must call the task");
  }
}
