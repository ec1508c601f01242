package io.tensafe.client.session;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.node.privatemode.ExchangeCounts;
import io.tensafe.node.runtime.Generation;

/**
 * One private completion: the text and the local token counts, the adapter that served it, the
 * marketplace's bill (counted from the frames), and what the frames cost.
 */
public record CompletionResult(
    Generation generation, String adapter, String version, JsonNode bill, ExchangeCounts frames) {}
