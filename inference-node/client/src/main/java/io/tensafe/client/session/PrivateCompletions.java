package io.tensafe.client.session;

import io.tensafe.client.marketplace.FleetPins;
import io.tensafe.client.marketplace.MarketplaceApi;
import io.tensafe.client.marketplace.OpenedSession;
import io.tensafe.node.privatemode.ClientDeltas;
import io.tensafe.node.privatemode.ClientKeys;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.Generation;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.SamplingParameters;
import io.tensafe.node.runtime.TextDelta;
import io.tensafe.node.runtime.TextGenerator;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.function.Consumer;

/**
 * Runs private completions (ADR 0017) on the client's machine: opens a session with a fresh CKKS
 * key pair and frame keys wrapped to the pinned fleets' keys (ADR 0037), checks the base model,
 * runs the decoder with every adapter delta computed by the node under that key (the prompt's
 * length shown only to its power-of-two bucket), and ends the session, which the marketplace bills
 * from the frames. The secret key lives only in this process, one per session. {@code auto} is
 * refused: the adapter it picks is a function of the prompt, which the opening would show.
 */
public final class PrivateCompletions {
  private final MarketplaceApi marketplace;
  private final QwenDecoder decoder;
  private final QwenTokenizer tokenizer;
  private final TextGenerator generator;
  private final BaseModelBinding binding;
  private final int maxPromptTokens;
  private final SecureRandom random = new SecureRandom();
  private final FleetPins fleets;

  public PrivateCompletions(
      MarketplaceApi marketplace,
      QwenDecoder decoder,
      QwenTokenizer tokenizer,
      long[] endTokens,
      BaseModelBinding binding,
      int maxPromptTokens,
      FleetPins fleets) {
    this.marketplace = marketplace;
    this.fleets = fleets;
    this.decoder = decoder;
    this.tokenizer = tokenizer;
    this.generator = new TextGenerator(decoder, tokenizer, endTokens);
    this.binding = binding;
    this.maxPromptTokens = maxPromptTokens;
  }

  /**
   * The adapter {@code model} names.
   *
   * @throws IllegalArgumentException for {@code auto}: in private mode the step-gate's choice would
   *     have to be named in the opening, which the marketplace and the node see, and which adapter
   *     matched is a function of the prompt's words (ADR 0037)
   */
  public static String route(String model) {
    if (model.equals("auto")) {
      throw new IllegalArgumentException(
          "model auto is not available in private mode: the adapter it picks depends on the"
              + " prompt's words, and the opening names it to the marketplace and the node; name"
              + " an adapter (id or id@version)");
    }
    return model;
  }

  /** The prompt's token count as the frames show it: the power of two at or above it. */
  static int bucket(int tokens) {
    return tokens <= 1 ? 1 : Integer.highestOneBit(tokens - 1) << 1;
  }

  /**
   * One completion of {@code prompt} (ChatML already applied) on adapter {@code model} (not {@code
   * auto}).
   *
   * @throws IOException if the marketplace refuses ({@link
   *     io.tensafe.client.marketplace.MarketplaceError}) or fails
   * @throws IllegalArgumentException if the prompt is too long
   * @throws BaseModelMismatchException if the adapter does not run on this client's model
   */
  public CompletionResult complete(
      String model, String prompt, SamplingParameters parameters, Consumer<TextDelta> onText)
      throws IOException, BaseModelMismatchException {
    long[] ids = tokenizer.encode(prompt);
    if (ids.length > maxPromptTokens) {
      throw new IllegalArgumentException(
          "the prompt has " + ids.length + " tokens; at most " + maxPromptTokens);
    }
    OpenedSession session = null;
    try {
      // Fresh key pairs per session, one per ring this model's inputs can need (the plan's rings).
      ClientKeys keys = ClientKeys.generate(SitePlan.ringsOf(decoder.adapterShape()), random);
      FrameAuth.Offer offer =
          FrameAuth.offer(fleets.check(marketplace.fleets()), keys.publicKeys(), random);
      int padded = Math.min(maxPromptTokens, bucket(ids.length));
      session =
          marketplace.open(
              route(model),
              parameters.maxTokens(),
              padded,
              keys.publicKeys().stream().map(Base64.getEncoder()::encodeToString).toList(),
              offer.wrap());
      binding.check(session.configSha256(), session.plan());
      FrameAuth auth = offer.byKeyId().get(session.fleetKeyId());
      if (auth == null) {
        throw new IOException(
            "the opening names fleet key "
                + session.fleetKeyId()
                + ", to which this client wrapped no frame keys");
      }
      String id = session.id();
      ClientDeltas deltas =
          new ClientDeltas(
              keys,
              session.plan(),
              frame -> marketplace.frame(id, frame, 1L << 30),
              session.terms(),
              auth);
      deltas.padPrompt(ids.length, padded, session.prefillChunk());
      Generation g;
      try {
        g = generator.generate(ids, parameters, deltas, onText, session.prefillChunk());
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      OpenedSession done = session;
      session = null;
      // usage counts the prompt as run and billed: its padded length (ADR 0037).
      Generation run =
          new Generation(
              g.text(),
              deltas.promptTokensRun(),
              g.completionTokens(),
              g.finishReason(),
              g.logprobs());
      return new CompletionResult(
          run, done.adapter(), done.version(), marketplace.close(done.id()), deltas.counts());
    } finally {
      if (session != null) {
        try {
          marketplace.close(session.id());
        } catch (IOException ignored) {
          // the marketplace ends an idle session itself and bills what it served
        }
      }
    }
  }
}
