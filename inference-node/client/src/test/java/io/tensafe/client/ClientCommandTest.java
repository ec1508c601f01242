package io.tensafe.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code ./tensafe client}'s options, checked before the model is loaded. */
class ClientCommandTest {
  @TempDir Path dir;

  @Test
  void localApiKey_tooShort_exitsWithAUsageErrorNamingTheRule() {
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new ClientCommand()).setErr(new PrintWriter(err));
    int rc =
        cli.execute(
            "--marketplace",
            "http://127.0.0.1:9",
            "--api-key",
            "tsk_x",
            "--model-dir",
            dir.toString(),
            "--local-api-key",
            "short");
    assertEquals(2, rc, err.toString());
    assertTrue(err.toString().contains("16 to 256 visible ASCII characters"), err.toString());
  }
}
