package io.tensafe.tgsp.manifest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.peft.ScalingRule;
import io.tensafe.tgsp.safetensors.DType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ManifestCodecTest {
  static Manifest sample() {
    return new Manifest(
        "0b5c6a9e-4f0e-4c1a-9d8e-2a7b3c4d5e6f",
        new Manifest.Adapter("banking-helper", "1.2.3"),
        new Manifest.Creator("acme-labs", "0123456789abcdef0123456789abcdef"),
        new Manifest.BaseModel("Qwen/Qwen2.5-1.5B", Optional.of("ab".repeat(32))),
        new Manifest.Lora(
            8,
            new BigDecimal("16"),
            ScalingRule.ALPHA_OVER_RANK,
            List.of("q_proj", "v_proj"),
            List.of(
                new Manifest.TensorShape("a.lora_A.weight", DType.BF16, List.of(8L, 1536L)),
                new Manifest.TensorShape("a.lora_B.weight", DType.BF16, List.of(1536L, 8L))),
            Optional.of(
                new Manifest.RankReduction(
                    16, List.of(new Manifest.SiteEnergy("a", new BigDecimal("0.987654"))))),
            Optional.of(new Manifest.PrivateBounds(-2, 1, 3))),
        new Manifest.Routing(List.of("bank", "interest rate"), "finance"),
        new Manifest.Price("EUR", 1500, 2000),
        "CC-BY-4.0",
        new Manifest.DpPolicy(
            new BigDecimal("1.5"),
            new BigDecimal("1.1"),
            new BigDecimal("0.00001"),
            BigDecimal.TEN,
            30),
        Optional.of(
            new Manifest.TrainingDpCertificate(
                new BigDecimal("3"), new BigDecimal("0.00001"), "DP-SGD", "RDP", 1000)),
        new Manifest.Payload(4096, "cd".repeat(32)),
        Instant.parse("2026-11-22T12:00:00Z"));
  }

  @Test
  void encodeThenDecode_roundTripsAndIsCanonical() throws Exception {
    byte[] bytes = ManifestCodec.encode(sample());
    Manifest decoded = ManifestCodec.decode(bytes);
    assertEquals(sample(), decoded);
    assertArrayEquals(bytes, ManifestCodec.encode(decoded));
    String json = new String(bytes, StandardCharsets.UTF_8);
    assertTrue(json.startsWith("{\"adapter\":{\"id\":\"banking-helper\""), json);
    assertTrue(json.contains("\"delta\":\"0.00001\""), json);
  }

  @Test
  void decode_validButNotCanonical_isRefused() {
    String pretty =
        new String(ManifestCodec.encode(sample()), StandardCharsets.UTF_8).replace(",", ", ");
    JsonSchemaException e =
        assertThrows(
            JsonSchemaException.class,
            () -> ManifestCodec.decode(pretty.getBytes(StandardCharsets.UTF_8)));
    assertTrue(e.getMessage().contains("canonical"), e.getMessage());
  }

  /** Each row replaces one canonical field text and expects the error to name the field. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          version not semver     | "version":"1.2.3"          | "version":"1.2"             | manifest.adapter.version
          unknown currency       | "currency":"EUR"           | "currency":"EUX"            | manifest.price.currency
          negative price         | "prompt_micros_per_1k_tokens":1500 | "prompt_micros_per_1k_tokens":-1 | prompt_micros_per_1k_tokens
          delta zero             | "delta":"0.00001"          | "delta":"0"                 | dp_policy.delta
          delta not canonical    | "delta":"0.00001"          | "delta":"1e-5"              | dp_policy.delta
          rank out of range      | "rank":8                   | "rank":0                    | manifest.lora.rank
          uppercase keyword      | "bank"                     | "Bank"                      | manifest.routing.keywords
          bad dtype              | "dtype":"BF16","name":"a.lora_A.weight" | "dtype":"I4","name":"a.lora_A.weight" | dtype
          bad key id             | "key_id":"0123456789abcdef0123456789abcdef" | "key_id":"xyz" | manifest.creator.key_id
          wrong format           | "format":"tgsp/2"          | "format":"tgsp/3"           | manifest.format
          bad timestamp          | "created_at":"2026-11-22T12:00:00Z" | "created_at":"2026-11-22 12:00" | manifest.created_at
          energy above one       | "retained_energy":"0.987654" | "retained_energy":"1.5"   | retained_energy
          """)
  void decode_fieldBreaksSchema_namesTheField(String rule, String from, String to, String path) {
    String json = new String(ManifestCodec.encode(sample()), StandardCharsets.UTF_8);
    assertTrue(json.contains(from), rule + ": fixture text not found");
    byte[] broken = json.replace(from, to).getBytes(StandardCharsets.UTF_8);
    TgspException e = assertThrows(TgspException.class, () -> ManifestCodec.decode(broken));
    assertTrue(e instanceof JsonSchemaException, rule + ": " + e);
    assertTrue(e.getMessage().contains(path), rule + ": " + e.getMessage());
  }

  static Manifest measured(java.util.OptionalLong tokensPerPeriod) {
    Manifest m = sample();
    return new Manifest(
        m.packageId(),
        m.adapter(),
        m.creator(),
        m.baseModel(),
        m.lora(),
        m.routing(),
        m.price(),
        m.licence(),
        new Manifest.DpPolicy(
            BigDecimal.valueOf(64), BigDecimal.ZERO, new BigDecimal("0.00001"), BigDecimal.TEN, 30),
        m.trainingDpCertificate(),
        m.payload(),
        m.createdAt(),
        Optional.of(
            new Manifest.MeasuredEffect(
                Manifest.MeasuredEffect.METHOD,
                "default",
                8,
                64,
                431,
                new BigDecimal("0.97"),
                new BigDecimal("0.0125"),
                tokensPerPeriod)));
  }

  @Test
  void measuredEffect_andNoNoise_roundTrip() throws Exception {
    for (java.util.OptionalLong tokens :
        List.of(java.util.OptionalLong.empty(), java.util.OptionalLong.of(123_456))) {
      byte[] bytes = ManifestCodec.encode(measured(tokens));
      assertEquals(measured(tokens), ManifestCodec.decode(bytes));
      String json = new String(bytes, StandardCharsets.UTF_8);
      assertTrue(json.contains("\"noise_multiplier\":\"0\""), json);
      assertEquals(tokens.isPresent(), json.contains("\"tokens_per_period\":123456"), json);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          agreement above one | "greedy_agreement":"0.97" | "greedy_agreement":"1.5"  | measured_effect.greedy_agreement
          unknown method      | "teacher-forced-greedy/1" | "made-up/1"               | measured_effect.method
          unknown source      | "prompt_source":"default" | "prompt_source":"other"   | measured_effect.prompt_source
          no prompts          | "prompts":8               | "prompts":0               | measured_effect.prompts
          negative noise      | "noise_multiplier":"0"    | "noise_multiplier":"-1"   | dp_policy.noise_multiplier
          """)
  void decode_measuredEffectBreaksSchema_namesTheField(
      String rule, String from, String to, String path) {
    String json =
        new String(
            ManifestCodec.encode(measured(java.util.OptionalLong.empty())), StandardCharsets.UTF_8);
    assertTrue(json.contains(from), rule + ": fixture text not found in " + json);
    byte[] broken = json.replace(from, to).getBytes(StandardCharsets.UTF_8);
    TgspException e = assertThrows(TgspException.class, () -> ManifestCodec.decode(broken));
    assertTrue(e.getMessage().contains(path), rule + ": " + e.getMessage());
  }

  @Test
  void decode_unknownField_isRefused() {
    String json = new String(ManifestCodec.encode(sample()), StandardCharsets.UTF_8);
    byte[] extra =
        json.replace("{\"adapter\"", "{\"zzz\":1,\"adapter\"").getBytes(StandardCharsets.UTF_8);
    JsonSchemaException e =
        assertThrows(JsonSchemaException.class, () -> ManifestCodec.decode(extra));
    assertTrue(e.getMessage().contains("unknown field"), e.getMessage());
  }
}
