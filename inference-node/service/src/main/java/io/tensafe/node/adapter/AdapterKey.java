package io.tensafe.node.adapter;

import java.util.regex.Pattern;

/**
 * One version of one adapter, as the marketplace names it.
 *
 * @param id the adapter id: lower-case letters, digits, '.', '_' and '-', 1..64 characters
 * @param version semantic version {@code MAJOR.MINOR.PATCH}, each part 0..999999999
 */
public record AdapterKey(String id, String version) {
  private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  private static final Pattern VERSION = Pattern.compile("[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}");

  public AdapterKey {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException("adapter id '" + id + "' is not a valid id");
    }
    if (version == null || !VERSION.matcher(version).matches()) {
      throw new IllegalArgumentException(
          "adapter version '" + version + "' is not MAJOR.MINOR.PATCH");
    }
  }

  /** Parses {@code id@version}. */
  public static AdapterKey parse(String text) {
    int at = text.indexOf('@');
    if (at < 0) {
      throw new IllegalArgumentException("'" + text + "' is not id@version");
    }
    return new AdapterKey(text.substring(0, at), text.substring(at + 1));
  }

  @Override
  public String toString() {
    return id + "@" + version;
  }
}
