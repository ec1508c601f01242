package io.tensafe.kernels.bench;

import io.tensafe.kernels.helora.PrivateClient;
import io.tensafe.kernels.helora.PrivatePacking;
import io.tensafe.kernels.helora.PrivateScales;
import io.tensafe.kernels.helora.RowChecks;
import io.tensafe.kernels.helora.SharedLoraNode;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerCodec;
import io.tensafe.kernels.protocol.ShareAnswer;
import io.tensafe.kernels.protocol.SwitchedAnswer;
import io.tensafe.kernels.protocol.UploadSeeds;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.GaloisKeys;
import io.tensafe.kernels.rlwe.GaloisKeysCodec;
import io.tensafe.kernels.rlwe.RlweCodec;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code ./tensafe bench he-lora --mode private}: both rounds of private mode's protocol ({@link
 * SharedLoraNode}, ADR 0017 and 0018) at one site of {@code d × r} (A) and {@code d × r} (B), one
 * token at a time on one thread, each stage timed on its own, and the bytes of each round both ways
 * as the wire encodings count them. Precision is measured on the same tokens without DP noise,
 * against the plaintext {@code B·A·x}.
 */
final class PrivateRoundsBench {
  /** Medians per token, in microseconds, and the bytes of one token's frames. */
  record Result(
      int ringDegree,
      int chunks,
      double clientEncryptUs,
      double nodeRoundOneUs,
      double clientSharesUs,
      double nodeRoundTwoUs,
      double clientDecryptUs,
      long roundOneBytesUp,
      long roundOneBytesDown,
      long roundTwoBytesUp,
      long roundTwoBytesDown,
      double maxRelError,
      int keySwitches,
      long openingBytes,
      String laneFields) {
    double nodeUs() {
      return nodeRoundOneUs + nodeRoundTwoUs;
    }

    double clientUs() {
      return clientEncryptUs + clientSharesUs + clientDecryptUs;
    }
  }

  private PrivateRoundsBench() {}

  /** The seeds of frame {@code sequence}'s {@code count} uploads. */
  private static List<byte[]> seeds(UploadSeeds seeds, Parameters p, long sequence, int count) {
    return java.util.stream.IntStream.range(0, count)
        .mapToObj(i -> seeds.seed(p.logN(), new byte[UploadSeeds.NONCE_BYTES], sequence, i))
        .toList();
  }

  static Result run(double[][] a, double[][] b, double[][] inputs, SecureRandom random) {
    int d = a[0].length;
    Parameters p = PrivateClient.parametersFor(Math.max(d, a.length));
    PrivateClient client = new PrivateClient(p, random);
    GaloisKeys galoisKeys = client.galoisKeys();
    SharedLoraNode node = new SharedLoraNode(client.publicKey(), galoisKeys, random);
    long input = RlweCodec.uploadBytes(p);
    int chunks = PrivatePacking.inputChunks(d, new int[] {a.length}, p);
    PrivatePacking.RoundTwo roundTwo = PrivatePacking.roundTwo(a.length, b.length, p);
    int shareChunks = roundTwo.shareChunks();
    // The signed bounds: powers of two at or above every row's L2 norm of A and L1 norm of B.
    double bound = Math.pow(2, Math.ceil(Math.log(RowChecks.maxRowL1(b)) / Math.log(2)));
    // The session's clip norm: the largest input's L2 norm, so no input is clipped.
    double clip = 0;
    for (double[] x : inputs) {
      clip = Math.max(clip, Math.sqrt(java.util.Arrays.stream(x).map(v -> v * v).sum()));
    }
    PrivateScales scales =
        new PrivateScales(
            clip, Math.pow(2, Math.ceil(Math.log(RowChecks.maxRowL2(a)) / Math.log(2))), bound);
    SharedLoraNode.Site site = node.prepare(a, b, scales, chunks, roundTwo);
    byte[] key = new byte[UploadSeeds.KEY_BYTES];
    random.nextBytes(key);
    UploadSeeds seeds = new UploadSeeds(key);
    int n = inputs.length;
    double[][] stages = new double[5][n];
    long[] bytes = new long[4];
    double worst = 0;
    for (int t = 0; t < n; t++) {
      long t0 = System.nanoTime();
      List<Ciphertext> x =
          client.encryptSharedInput(inputs[t], scales, seeds(seeds, p, 2L * t, chunks));
      List<byte[]> up1 = x.stream().map(RlweCodec::toUploadBytes).toList();
      long t1 = System.nanoTime();
      SharedLoraNode.RoundOne one = node.roundOne(site, x);
      List<byte[]> down1 = one.toClient().stream().map(AnswerCodec::toBytes).toList();
      long t2 = System.nanoTime();
      List<ShareAnswer> shareAnswers = one.toClient();
      List<Ciphertext> sent =
          client.encryptShares(
              client.decryptShares(shareAnswers, site.aOutputs()),
              scales,
              seeds(seeds, p, 2L * t + 1, shareChunks));
      List<byte[]> up2 = sent.stream().map(RlweCodec::toUploadBytes).toList();
      long t3 = System.nanoTime();
      List<SwitchedAnswer> two = node.roundTwoWithoutNoiseForTesting(site, one.share(), sent);
      List<byte[]> down2 = two.stream().map(AnswerCodec::toBytes).toList();
      long t4 = System.nanoTime();
      double[] delta = client.decryptDeltas(two, site.bOutputs());
      long t5 = System.nanoTime();
      long[] marks = {t0, t1, t2, t3, t4, t5};
      for (int s = 0; s < 5; s++) {
        stages[s][t] = (marks[s + 1] - marks[s]) / 1e3;
      }
      bytes[0] = up1.stream().mapToLong(c -> c.length).sum();
      bytes[1] = down1.stream().mapToLong(c -> c.length).sum();
      bytes[2] = up2.stream().mapToLong(c -> c.length).sum();
      bytes[3] = down2.stream().mapToLong(c -> c.length).sum();
      worst = Math.max(worst, relativeError(multiply(b, multiply(a, inputs[t])), delta));
    }
    return new Result(
        p.ringDegree(),
        chunks,
        median(stages[0]),
        median(stages[1]),
        median(stages[2]),
        median(stages[3]),
        median(stages[4]),
        bytes[0],
        bytes[1],
        bytes[2],
        bytes[3],
        worst,
        site.aOutputs().switches() + site.bOutputs().switches(),
        GaloisKeysCodec.toBytes(galoisKeys).length + RlweCodec.toBytes(client.publicKey()).length,
        p.ntts().getFirst().laneFields());
  }

  static String json(Result r, int dimension, int rank) {
    return String.format(
        Locale.ROOT,
        "{\"dim\":%d,\"rank\":%d,\"packing\":\"coefficient\",\"mode\":\"private\",\"ring_degree\":%d,"
            + "\"limbs\":2,\"batch\":1,\"threads\":1,\"input_chunks\":%d,\"he_ms_per_token\":%.4f,"
            + "\"node_round_one_us_per_token\":%.1f,\"node_round_two_us_per_token\":%.1f,"
            + "\"node_us_per_token_per_site\":%.1f,\"client_us_per_token\":%.1f,"
            + "\"round_one_bytes_up\":%d,\"round_one_bytes_down\":%d,\"round_two_bytes_up\":%d,"
            + "\"round_two_bytes_down\":%d,\"bytes_per_token\":%d,\"max_rel_error\":%.3e,"
            + "\"key_switches_per_token\":%d,\"switch_cost_bytes\":%d,"
            + "\"session_opening_bytes\":%d,%s}",
        dimension,
        rank,
        r.ringDegree(),
        r.chunks(),
        (r.nodeUs() + r.clientUs()) / 1e3,
        r.nodeRoundOneUs(),
        r.nodeRoundTwoUs(),
        r.nodeUs(),
        r.clientUs(),
        r.roundOneBytesUp(),
        r.roundOneBytesDown(),
        r.roundTwoBytesUp(),
        r.roundTwoBytesDown(),
        r.roundOneBytesUp() + r.roundOneBytesDown() + r.roundTwoBytesUp() + r.roundTwoBytesDown(),
        r.maxRelError(),
        r.keySwitches(),
        PrivatePacking.switchCostBytes(),
        r.openingBytes(),
        r.laneFields());
  }

  /** max |expected − actual| over max |expected|. */
  private static double relativeError(double[] expected, double[] actual) {
    double error = 0;
    double magnitude = 0;
    for (int i = 0; i < expected.length; i++) {
      error = Math.max(error, Math.abs(expected[i] - actual[i]));
      magnitude = Math.max(magnitude, Math.abs(expected[i]));
    }
    return error / magnitude;
  }

  private static double[] multiply(double[][] m, double[] x) {
    double[] out = new double[m.length];
    HeLoraBenchCommand.multiplyInto(m, x, out);
    return out;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
