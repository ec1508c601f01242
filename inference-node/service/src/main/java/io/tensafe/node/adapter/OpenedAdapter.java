package io.tensafe.node.adapter;

import io.tensafe.node.privatemode.PrivateBounds;
import io.tensafe.node.runtime.InputPrivacy;
import java.nio.file.Path;
import java.util.Optional;

/**
 * An adapter version made available to the node as a plain PEFT folder.
 *
 * @param folder the PEFT folder (owned by the source; read, never modified)
 * @param privacy the input mechanism the creator's signed policy requires, if any
 * @param privateBounds the signed bounds private mode needs (ADR 0025), if the package has them
 */
public record OpenedAdapter(
    Path folder, Optional<InputPrivacy> privacy, Optional<PrivateBounds> privateBounds) {}
