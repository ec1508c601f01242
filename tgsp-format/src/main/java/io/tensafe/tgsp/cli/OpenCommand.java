package io.tensafe.tgsp.cli;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.container.PackageReader;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.packaging.AdapterOpener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tgsp open FILE --fleet-key fleet.key --trust creator.pub --out DIR}. */
@Command(
    name = "open",
    mixinStandardHelpOptions = true,
    description = {
      "Verify and decrypt a package into a PEFT folder.",
      "Needs the fleet private key. Writes adapter_config.json and adapter_model.safetensors;",
      "the --out folder must not exist, and appears only when every check has passed."
    })
final class OpenCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "the .tgsp file")
  Path file;

  @Option(names = "--fleet-key", required = true, description = "the fleet.key to decrypt with")
  Path fleetKey;

  @Option(names = "--trust", required = true, description = "a trusted creator.pub (repeatable)")
  List<Path> trust;

  @Option(names = "--out", required = true, description = "the PEFT folder to create")
  Path out;

  @Override
  public Integer call() throws IOException, TgspException {
    ProgressBar bar = new ProgressBar("open", Files.size(file));
    PackageReader.VerifiedPackage verified =
        AdapterOpener.open(
            file, VerifyCommand.trustStore(trust), KeyFiles.readFleetPrivate(fleetKey), out, bar);
    bar.finish(verified.prefix().payloadLength());
    System.out.println("opened " + verified.describe() + " -> " + out);
    return 0;
  }
}
