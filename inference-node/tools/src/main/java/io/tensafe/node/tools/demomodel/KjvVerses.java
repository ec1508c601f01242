package io.tensafe.node.tools.demomodel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo model's corpus: the books of Proverbs and Ecclesiastes of the King James Bible (1611,
 * public domain), from Debian's {@code bible-kjv-text}, printed by {@code bible-kjv}'s {@code
 * bible} program one verse a line ({@code Prv22:7 The rich ruleth over the poor, ...}).
 */
final class KjvVerses {
  /** Proverbs 1:1 to Ecclesiastes 12:14: 1,137 verses. */
  static final String RANGE = "pro1:1-ecc12:14";

  /** Where Debian's {@code bible-kjv} installs the program. */
  static final Path PROGRAM = Path.of("/usr/bin/bible");

  private static final Pattern LINE = Pattern.compile("([1-3]?[A-Za-z]+)(\\d+):(\\d+) (.+)");

  /** One verse: its book's abbreviation, chapter and number, and its text. */
  record Verse(String book, int chapter, int number, String text) {}

  private KjvVerses() {}

  /** Runs {@code program -f RANGE} and parses what it prints. */
  static List<Verse> read(Path program) throws IOException {
    if (!Files.isExecutable(program)) {
      throw new IOException(
          program
              + " is missing: install Debian's bible-kjv and bible-kjv-text (./tensafe model demo"
              + " does)");
    }
    Process process =
        new ProcessBuilder(program.toString(), "-f", RANGE)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
      }
    }
    try {
      int code = process.waitFor();
      if (code != 0) {
        throw new IOException(program + " -f " + RANGE + " exited with " + code);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading the corpus", e);
    }
    return parse(lines);
  }

  /**
   * The verses of {@code bible -f}'s lines; blank lines are skipped, any other line is an error.
   */
  static List<Verse> parse(List<String> lines) throws IOException {
    List<Verse> verses = new ArrayList<>();
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      Matcher m = LINE.matcher(line.strip());
      if (!m.matches()) {
        throw new IOException("not a verse line of bible -f: " + line);
      }
      verses.add(
          new Verse(
              m.group(1),
              Integer.parseInt(m.group(2)),
              Integer.parseInt(m.group(3)),
              m.group(4).strip()));
    }
    if (verses.isEmpty()) {
      throw new IOException("bible -f " + RANGE + " printed no verse");
    }
    return verses;
  }
}
