package io.tensafe.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.tools.bench.NodeBenchCommand;
import io.tensafe.node.tools.demo.DemoCommand;
import io.tensafe.node.tools.model.ModelCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The tools' command lines as `./tensafe` calls them: valid specs, usage errors, one real run. */
class ToolCommandsTest {

  private record Run(int exitCode, String out, String err) {}

  private static Run run(Object command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine line = new CommandLine(command);
    line.setOut(new PrintWriter(out));
    line.setErr(new PrintWriter(err));
    int code = line.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void everyToolsHelp_exitsZero_andNamesItsOptions() {
    assertTrue(run(new DemoCommand(), "seed", "--help").out().contains("--marketplace"));
    assertTrue(run(new DemoCommand(), "keys", "--help").out().contains("--dir"));
    assertTrue(run(new ModelCommand(), "tiny", "--help").out().contains("--seed"));
    assertTrue(run(new ModelCommand(), "demo", "--help").out().contains("--out"));
    assertTrue(run(new NodeBenchCommand(), "--help").out().contains("--adapter-rank"));
  }

  @Test
  void anUnknownOption_isAUsageError() {
    Run r = run(new ModelCommand(), "tiny", "--out", "x", "--no-such-option");
    assertEquals(2, r.exitCode());
    assertTrue(r.err().contains("--no-such-option"), r.err());
  }

  @Test
  void modelTiny_writesAModelFolder(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("tiny");
    Run r = run(new ModelCommand(), "tiny", "--out", out.toString(), "--seed", "3");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(Files.readString(out.resolve("config.json")).contains("\"model_type\": \"qwen3\""));
    assertTrue(Files.size(out.resolve("tokenizer.json")) > 0);
  }

  @Test
  void modelTiny_archQwen2_writesBiasesAndRefusesAnUnknownArch(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("qwen2");
    Run r =
        run(new ModelCommand(), "tiny", "--out", out.toString(), "--seed", "4", "--arch", "qwen2");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(Files.readString(out.resolve("config.json")).contains("\"model_type\": \"qwen2\""));
    assertTrue(
        io.tensafe.node.model.ModelFolder.load(out)
            .weights()
            .containsKey("model.layers.1.self_attn.v_proj.bias"));
    assertEquals(
        2, run(new ModelCommand(), "tiny", "--out", out.toString(), "--arch", "llama").exitCode());
    Path moe = dir.resolve("moe");
    assertEquals(
        0,
        run(new ModelCommand(), "tiny", "--out", moe.toString(), "--arch", "qwen3-moe").exitCode());
    assertTrue(
        io.tensafe.node.model.ModelFolder.load(moe)
            .weights()
            .containsKey("model.layers.1.mlp.experts.7.down_proj.weight"));
  }
}
