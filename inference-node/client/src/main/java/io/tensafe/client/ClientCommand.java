package io.tensafe.client;

import io.tensafe.client.api.LocalApi;
import io.tensafe.client.api.LocalApiKey;
import io.tensafe.client.marketplace.FleetPins;
import io.tensafe.client.marketplace.MarketplaceApi;
import io.tensafe.client.session.BaseModelBinding;
import io.tensafe.client.session.PrivateCompletions;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import io.tensafe.tgsp.crypto.KeyFiles;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./tensafe client}: the private-mode client runtime (ADR 0017). Loads the base model from
 * {@code --model-dir}, serves an OpenAI-compatible endpoint on 127.0.0.1, and prints {@code
 * OPENAI_BASE_URL=http://127.0.0.1:PORT/v1} and then {@code OPENAI_API_KEY=KEY}, each on a line of
 * its own, once it answers. The endpoint takes only that key ({@link LocalApiKey}: random per run
 * unless {@code --local-api-key} or {@code $TENSAFE_CLIENT_API_KEY} sets it), so other processes on
 * the machine cannot spend the marketplace key. Every completion runs with a fresh CKKS key pair
 * that never leaves this process; the marketplace sees frames only.
 */
@Command(
    name = "client",
    mixinStandardHelpOptions = true,
    description = "Serve a local OpenAI-compatible endpoint that runs private-mode completions.")
public final class ClientCommand implements Callable<Integer> {
  @Option(names = "--marketplace", required = true, description = "the marketplace's URL")
  URI marketplace;

  @Option(
      names = "--api-key",
      required = true,
      defaultValue = "${env:TENSAFE_API_KEY}",
      description = "the marketplace API key (default: $TENSAFE_API_KEY)")
  String apiKey;

  @Option(
      names = "--local-api-key",
      defaultValue = "${env:TENSAFE_CLIENT_API_KEY}",
      description =
          "the key the local endpoint takes, 16 to 256 visible ASCII characters (default:"
              + " $TENSAFE_CLIENT_API_KEY, else a random one); other users see options in ps, so"
              + " prefer the variable")
  String localApiKey;

  @Spec CommandSpec spec;

  @Option(names = "--model-dir", required = true, description = "the base model's folder")
  Path modelDir;

  @Option(names = "--port", defaultValue = "0", description = "local port (default: any free)")
  int port;

  @Option(
      names = "--max-prompt-tokens",
      defaultValue = "4096",
      description = "the longest prompt accepted, in tokens")
  int maxPromptTokens;

  @Option(
      names = "--fleet-key",
      description =
          "a node fleet's public key file, pinned: the session's frame keys are wrapped to it and"
              + " the marketplace may not list another key for that fleet (repeatable; ADR 0037)")
  List<Path> fleetKeys = new ArrayList<>();

  @Option(
      names = "--known-fleets",
      defaultValue = "${env:TENSAFE_KNOWN_FLEETS}",
      description =
          "the file of fleet keys pinned on first use (default: $TENSAFE_KNOWN_FLEETS, else"
              + " ~/.tensafe/known_fleets.json)")
  Path knownFleets;

  @Option(
      names = "--trust-new-fleets",
      description =
          "pin fleets the marketplace lists after the first contact too (default: only the"
              + " fleets pinned at the first contact, or those of --fleet-key, are used)")
  boolean trustNewFleets;

  @Override
  public Integer call() throws Exception {
    LocalApiKey key;
    try {
      key =
          localApiKey == null || localApiKey.isEmpty()
              ? LocalApiKey.generate(new SecureRandom())
              : LocalApiKey.of(localApiKey);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    System.setProperty("ai.djl.offline", "true");
    QwenDecoder decoder = new QwenDecoder(ModelFolder.load(modelDir));
    io.tensafe.node.model.ModelVocabulary vocabulary =
        io.tensafe.node.model.ModelVocabulary.read(modelDir);
    QwenTokenizer tokenizer = QwenTokenizer.fromFile(vocabulary.tokenizerJson());
    MarketplaceApi api = new MarketplaceApi(marketplace, apiKey);
    List<FleetPublicKey> pinned = new ArrayList<>();
    for (Path f : fleetKeys) {
      try {
        pinned.add(KeyFiles.readFleetPublic(f));
      } catch (TgspException | java.io.IOException e) {
        throw new ParameterException(
            spec.commandLine(), "--fleet-key " + f + " is not a fleet public key file: " + e);
      }
    }
    FleetPins pins =
        FleetPins.load(
            knownFleets != null
                ? knownFleets
                : Path.of(System.getProperty("user.home"), ".tensafe", "known_fleets.json"),
            pinned,
            trustNewFleets);
    PrivateCompletions completions =
        new PrivateCompletions(
            api,
            decoder,
            tokenizer,
            vocabulary.endTokens(),
            new BaseModelBinding(modelDir, decoder.shape(), decoder.adapterShape()),
            maxPromptTokens,
            pins);
    if (vocabulary.chat() == null) {
      throw new ParameterException(
          spec.commandLine(),
          modelDir + " has no chat template (tokenizer_config.json): the local endpoint needs one");
    }
    try (LocalApi local = new LocalApi(port, key, api, completions, vocabulary.chat())) {
      // One write: a script that sees the key's line has the URL's too.
      System.out.print(
          "OPENAI_BASE_URL=http://127.0.0.1:"
              + local.port()
              + "/v1\nOPENAI_API_KEY="
              + key.value()
              + "\n");
      System.out.flush();
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
      stop.await();
    } finally {
      decoder.close();
      tokenizer.close();
    }
    return 0;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new ClientCommand()).execute(args));
  }
}
