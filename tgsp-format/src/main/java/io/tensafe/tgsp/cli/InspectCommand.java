package io.tensafe.tgsp.cli;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.container.PackageReader;
import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.manifest.ManifestCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tgsp inspect FILE [--json]}: the manifest and signer, without any key. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Show a package's manifest, signer and recipients (unverified).",
      "Needs no key, so nothing shown is verified: use `verify` before trusting any of it."
    })
final class InspectCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "the .tgsp file")
  Path file;

  @Option(names = "--json", description = "print one JSON object")
  boolean json;

  @Override
  public Integer call() throws IOException, TgspException {
    PackageReader.Inspection inspection = PackageReader.inspect(file);
    Manifest m = inspection.manifest();
    if (json) {
      Map<String, JsonValue> out = new LinkedHashMap<>();
      out.put(
          "manifest", JsonParser.parse("manifest", ManifestCodec.encode(m), JsonLimits.document()));
      out.put(
          "signer",
          new JsonObject(
              Map.of(
                  "creator_id", new JsonString(m.creator().id()),
                  "key_id", new JsonString(inspection.prefix().creatorKeyIdHex()),
                  "algorithms", new JsonString("Ed25519+ML-DSA-65"))));
      out.put("signature_verified", new JsonValue.JsonBoolean(false));
      out.put(
          "recipients",
          new JsonValue.JsonArray(
              inspection.recipientIds().stream().map(r -> (JsonValue) new JsonString(r)).toList()));
      out.put(
          "payload_bytes",
          new JsonValue.JsonNumber(
              java.math.BigDecimal.valueOf(inspection.prefix().payloadLength())));
      System.out.println(
          new String(CanonicalJson.encode(new JsonObject(out)), StandardCharsets.UTF_8));
      return 0;
    }
    System.out.println(
        "TGSP v2 package " + m.packageId() + " (signature NOT verified: use verify)");
    System.out.println("  adapter      " + m.adapter().id() + "@" + m.adapter().version());
    System.out.println(
        "  creator      " + m.creator().id() + " key " + inspection.prefix().creatorKeyIdHex());
    System.out.println("  base model   " + m.baseModel().id());
    System.out.println(
        "  lora         rank "
            + m.lora().rank()
            + ", alpha "
            + m.lora().alpha().toPlainString()
            + ", "
            + m.lora().scaling().wireName()
            + ", targets "
            + m.lora().targetModules()
            + ", "
            + m.lora().tensors().size()
            + " tensors");
    System.out.println("  routing      " + m.routing().domain() + " " + m.routing().keywords());
    System.out.println(
        "  price        "
            + m.price().promptMicrosPer1kTokens()
            + " / "
            + m.price().completionMicrosPer1kTokens()
            + " micro-"
            + m.price().currency()
            + " per 1k prompt / completion tokens");
    System.out.println(
        "  dp policy    C="
            + m.dpPolicy().clipNorm().toPlainString()
            + " sigma="
            + m.dpPolicy().noiseMultiplier().toPlainString()
            + " delta="
            + m.dpPolicy().delta().toPlainString()
            + " epsilon/period="
            + m.dpPolicy().epsilonBudgetPerPeriod().toPlainString()
            + " period="
            + m.dpPolicy().periodDays()
            + "d");
    System.out.println("  licence      " + m.licence());
    System.out.println(
        "  payload      "
            + m.payload().plaintextBytes()
            + " bytes, sha256 "
            + m.payload().plaintextSha256());
    System.out.println("  recipients   " + inspection.recipientIds());
    System.out.println("  created      " + m.createdAt());
    return 0;
  }
}
