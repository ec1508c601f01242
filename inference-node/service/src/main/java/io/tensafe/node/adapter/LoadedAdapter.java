package io.tensafe.node.adapter;

import io.tensafe.node.privatemode.PrivateBounds;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.PreparedAdapter;
import java.util.Optional;

/**
 * An adapter version held in memory, ready for requests. Immutable; a request that resolved it
 * keeps using it even after it is evicted or replaced by a newer version.
 *
 * @param key the version
 * @param prepared its weights, with A prepared for the HE operator
 * @param privacy the input mechanism its policy requires, if any
 * @param privateBounds its signed bounds for private mode, if its package has them
 */
public record LoadedAdapter(
    AdapterKey key,
    PreparedAdapter prepared,
    Optional<InputPrivacy> privacy,
    Optional<PrivateBounds> privateBounds) {}
