package io.tensafe.node.marketplace;

import java.io.IOException;

/** The marketplace has no package of that adapter version for this node's fleet (404). */
public class PackageNotFoundException extends IOException {
  public PackageNotFoundException(String message) {
    super(message);
  }
}
