package io.tensafe.tgsp.container;

import io.tensafe.tgsp.TgspException;

/**
 * The package's fixed structure is wrong: magic, version, flags, or section sizes that do not add
 * up.
 */
public final class MalformedPackageException extends TgspException {
  public MalformedPackageException(String message) {
    super(message);
  }
}
