package io.tensafe.tgsp.cli;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.container.PackageReader;
import io.tensafe.tgsp.crypto.CreatorPublicKey;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.crypto.TrustStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tgsp verify FILE --trust creator.pub}: exit 0 only if every check passes. */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
      "Verify a package against trusted creator keys.",
      "Checks structure, both signatures (keys from --trust only, never from the package),",
      "manifest, recipients and payload digest. Exit 0 if valid; otherwise one line naming the",
      "failed check, and exit 1."
    })
final class VerifyCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "the .tgsp file")
  Path file;

  @Option(
      names = "--trust",
      required = true,
      description = "a trusted creator.pub (repeat for several creators)")
  List<Path> trust;

  @Override
  public Integer call() throws IOException, TgspException {
    TrustStore store = trustStore(trust);
    ProgressBar bar = new ProgressBar("verify", Files.size(file));
    PackageReader.VerifiedPackage verified = PackageReader.verify(file, store, bar);
    bar.finish(verified.prefix().payloadLength());
    System.out.println("VALID: " + verified.describe() + " (Ed25519 + ML-DSA-65 both verified)");
    return 0;
  }

  static TrustStore trustStore(List<Path> files) throws IOException, TgspException {
    List<CreatorPublicKey> keys = new ArrayList<>();
    for (Path p : files) {
      keys.add(KeyFiles.readCreatorPublic(p));
    }
    return TrustStore.of(keys);
  }
}
