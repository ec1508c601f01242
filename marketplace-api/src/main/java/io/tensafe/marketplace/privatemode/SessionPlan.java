package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.tgsp.session.FrameHeader;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The counts a private session's frames must have, from the plan the node sent when it opened the
 * session: the marketplace checks every frame against them itself rather than taking either party's
 * word (ADR 0024). Its site paths are checked against the version's manifest ({@link #mismatch})
 * before any frame. Validated when read; immutable.
 *
 * @param groups per site group of the plan, in frame-group order; at least one
 * @param noisedSitesPerToken the adapted sites, each noised once per token the node runs, ≥ 1
 */
record SessionPlan(List<Group> groups, int noisedSitesPerToken) {
  /** The longest site path read, in characters: a module path is far shorter. */
  static final int MAX_PATH_CHARS = 256;

  /** A site path's characters: a module path's (letters, digits, '_' and '.'). */
  private static final Pattern PATH = Pattern.compile("[A-Za-z0-9_.]+");

  /** The most paths a mismatch names of each kind. */
  private static final int NAMED = 3;

  /**
   * One site group's sites and counts, per token of a frame.
   *
   * @param sites the module paths of the group's sites, as the node listed them: 1 to {@link
   *     FrameOrder#MAX_SITES_PER_GROUP}, each of 1 to {@link #MAX_PATH_CHARS} letters, digits, '_'
   *     or '.'
   * @param roundOneCiphertexts client ciphertexts in a round one, in [1, {@link
   *     FrameOrder#MAX_INPUT_CHUNKS}]
   * @param roundTwoCiphertexts client ciphertexts in a round two, in [1, {@link
   *     FrameOrder#MAX_SITES_PER_GROUP} × {@link FrameOrder#MAX_INPUT_CHUNKS}]
   * @param roundOneAnswers answer ciphertexts to a round one, in [0, 65535]
   * @param roundTwoAnswers answer ciphertexts to a round two, in [0, 65535]
   * @param uploadBytes the exact length of every client ciphertext of the group, ≥ 1
   */
  record Group(
      List<String> sites,
      int roundOneCiphertexts,
      int roundTwoCiphertexts,
      int roundOneAnswers,
      int roundTwoAnswers,
      int uploadBytes) {
    Group {
      sites = List.copyOf(sites);
    }
  }

  SessionPlan {
    groups = List.copyOf(groups);
  }

  /**
   * Reads and checks the node's open answer ({@code groups[].sites[].path}, {@code
   * groups[].round_one_ciphertexts, ...}, {@code noised_sites_per_token}). Every array's size and
   * every path's length is checked before anything is kept of it.
   *
   * @param maxCiphertextBytes the largest ciphertext a frame may carry
   * @throws IllegalArgumentException naming the field that is missing or out of range
   */
  static SessionPlan of(JsonNode answer, int maxCiphertextBytes) {
    JsonNode groups = answer.path("groups");
    if (!groups.isArray() || groups.isEmpty() || groups.size() > 0xFFFF) {
      throw new IllegalArgumentException("the plan has no groups, or more than 65535");
    }
    List<Group> read = new ArrayList<>(groups.size());
    for (int g = 0; g < groups.size(); g++) {
      JsonNode group = groups.get(g);
      String at = "groups[" + g + "].";
      read.add(
          new Group(
              sites(group, at),
              field(group, at, "round_one_ciphertexts", 1, FrameOrder.MAX_INPUT_CHUNKS),
              field(
                  group,
                  at,
                  "round_two_ciphertexts",
                  1,
                  FrameOrder.MAX_SITES_PER_GROUP * FrameOrder.MAX_INPUT_CHUNKS),
              field(group, at, "round_one_answers", 0, 0xFFFF),
              field(group, at, "round_two_answers", 0, 0xFFFF),
              field(group, at, "upload_bytes", 1, maxCiphertextBytes)));
    }
    return new SessionPlan(read, field(answer, "", "noised_sites_per_token", 1, Integer.MAX_VALUE));
  }

  /**
   * The paths of {@code group}'s {@code sites}: 1 to 3, each bounded and of a path's characters.
   */
  private static List<String> sites(JsonNode group, String at) {
    JsonNode sites = group.path("sites");
    if (!sites.isArray() || sites.isEmpty() || sites.size() > FrameOrder.MAX_SITES_PER_GROUP) {
      throw new IllegalArgumentException(
          "the plan's "
              + at
              + "sites is not an array of 1 to "
              + FrameOrder.MAX_SITES_PER_GROUP
              + " sites");
    }
    List<String> paths = new ArrayList<>(sites.size());
    for (int s = 0; s < sites.size(); s++) {
      JsonNode path = sites.get(s).path("path");
      if (!path.isTextual()
          || path.textValue().isEmpty()
          || path.textValue().length() > MAX_PATH_CHARS
          || !PATH.matcher(path.textValue()).matches()) {
        throw new IllegalArgumentException(
            "the plan's "
                + at
                + "sites["
                + s
                + "].path is not a module path of 1 to "
                + MAX_PATH_CHARS
                + " letters, digits, '_' or '.'");
      }
      paths.add(path.textValue());
    }
    return paths;
  }

  /** Every site path of the plan, in its groups' order. */
  List<String> sitePaths() {
    List<String> paths = new ArrayList<>();
    for (Group g : groups) {
      paths.addAll(g.sites());
    }
    return paths;
  }

  /**
   * Why the plan's sites are not exactly {@code modules} (the version's adapted modules), each
   * listed once: the paths it lists twice, those it lists that the version does not adapt, and
   * those of the version it leaves out, at most {@value #NAMED} of each named. Empty when they are.
   */
  Optional<String> mismatch(Set<String> modules) {
    Set<String> listed = new HashSet<>();
    Set<String> twice = new TreeSet<>();
    Set<String> foreign = new TreeSet<>();
    for (String path : sitePaths()) {
      if (!listed.add(path)) {
        twice.add(path);
      } else if (!modules.contains(path)) {
        foreign.add(path);
      }
    }
    Set<String> missing = new TreeSet<>(modules);
    missing.removeAll(listed);
    List<String> problems = new ArrayList<>();
    if (!twice.isEmpty()) {
      problems.add("lists " + named(twice) + " more than once");
    }
    if (!foreign.isEmpty()) {
      problems.add("lists " + named(foreign) + " that the version does not adapt");
    }
    if (!missing.isEmpty()) {
      problems.add("leaves out " + named(missing) + " of the version's " + modules.size());
    }
    return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
  }

  /** {@code paths}' count and up to {@value #NAMED} of them. */
  private static String named(Set<String> paths) {
    List<String> first = paths.stream().limit(NAMED).toList();
    return paths.size()
        + (paths.size() == 1 ? " site (" : " sites (")
        + String.join(", ", first)
        + (paths.size() > NAMED ? ", ..." : "")
        + ")";
  }

  private static int field(JsonNode node, String at, String name, int min, int max) {
    JsonNode v = node.path(name);
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min || v.intValue() > max) {
      throw new IllegalArgumentException(
          "the plan's "
              + at
              + name
              + " is "
              + (v.isMissingNode() ? "missing" : v.toString())
              + ", not an integer in ["
              + min
              + ", "
              + max
              + "]");
    }
    return v.intValue();
  }

  /**
   * The exact length of a client frame with header {@code h} that {@link #requireClientFrame}
   * accepts: the header and, per ciphertext, its 4-byte length and {@code upload_bytes}.
   */
  long frameBytes(FrameHeader h) {
    return FrameHeader.BYTES + (long) h.count() * (4L + groups.get(h.group()).uploadBytes());
  }

  /**
   * Checks a client frame's group and ciphertext count against the plan: exactly the group's count
   * per token × the frame's tokens.
   *
   * @throws MalformedFrameException naming the group, the count and the one expected
   */
  void requireClientFrame(FrameHeader h) throws MalformedFrameException {
    if (h.group() >= groups.size()) {
      throw new MalformedFrameException(
          "group " + h.group() + " is not in the session's plan of " + groups.size() + " groups");
    }
    Group g = groups.get(h.group());
    int perToken = h.kind() == FrameKind.ROUND_ONE ? g.roundOneCiphertexts : g.roundTwoCiphertexts;
    requireCount("a " + round(h.kind()), h, perToken);
  }

  /**
   * Checks the node's answer to client frame {@code client}: exactly the group's answers per token
   * × the frame's tokens.
   *
   * @throws MalformedFrameException naming the count and the one expected
   */
  void requireAnswer(FrameHeader client, int answerCiphertexts) throws MalformedFrameException {
    Group g = groups.get(client.group());
    int perToken = client.kind() == FrameKind.ROUND_ONE ? g.roundOneAnswers : g.roundTwoAnswers;
    long expected = (long) perToken * client.tokens();
    if (answerCiphertexts != expected) {
      throw new MalformedFrameException(
          "the answer to a "
              + round(client.kind())
              + " of group "
              + client.group()
              + " carries "
              + answerCiphertexts
              + " ciphertexts where the plan gives "
              + perToken
              + " per token × "
              + client.tokens()
              + " tokens = "
              + expected);
    }
  }

  private static void requireCount(String what, FrameHeader h, int perToken)
      throws MalformedFrameException {
    long expected = (long) perToken * h.tokens();
    if (h.count() != expected) {
      throw new MalformedFrameException(
          what
              + " of group "
              + h.group()
              + " carries "
              + perToken
              + " ciphertexts per token × "
              + h.tokens()
              + " tokens = "
              + expected
              + ", not "
              + h.count());
    }
  }

  private static String round(FrameKind kind) {
    return kind == FrameKind.ROUND_ONE ? "round one" : "round two";
  }

  /** Upload bytes of every client ciphertext of {@code group}. */
  int uploadBytes(int group) {
    return groups.get(group).uploadBytes();
  }
}
