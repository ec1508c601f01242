package io.tensafe.marketplace.apidoc;

import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The OpenAPI schema of a completion answer; documentation only, never instantiated. */
@Schema(
    type = SchemaType.OBJECT,
    description =
        "OpenAI's chat.completion (or text_completion) object with usage (the tokens billed) and a"
            + " tensafe object: request id, adapter, version, route reason, node, prices, amount"
            + " in micro-units, ε spent and limit, HE and DP statistics. choices holds n entries,"
            + " index 0..n-1, each with its finish_reason and, when logprobs was asked for,"
            + " logprobs.content[] of {token, logprob, bytes, top_logprobs}. With stream: true,"
            + " text/event-stream of chat.completion.chunk objects, each naming its choice's"
            + " index (a choice's chunks in order; one finish chunk per choice), a usage chunk"
            + " when stream_options.include_usage is set, then [DONE].")
public record CompletionAnswer() {}
