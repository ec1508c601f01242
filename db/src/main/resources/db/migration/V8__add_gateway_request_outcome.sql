-- How each dispatched request ended, as the gateway saw it (issue 7). A request the gateway ended
-- itself (finished, or cut short because the client or the node went away) is billed by the
-- gateway for what it delivered; a node's later usage report for it is recorded but bills nothing.
-- A request with no end here (the marketplace restarted mid-stream) is billed from the node's
-- report, which is then the only account of it.
ALTER TABLE gateway_request
    ADD COLUMN ended_at timestamptz,
    ADD COLUMN outcome text
        CHECK (outcome IN ('completed', 'client_gone', 'node_failed')),
    ADD COLUMN delivered_prompt_tokens integer CHECK (delivered_prompt_tokens >= 0),
    ADD COLUMN delivered_completion_tokens integer CHECK (delivered_completion_tokens >= 0),
    ADD CONSTRAINT gateway_request_ended CHECK (
        (ended_at IS NULL) = (outcome IS NULL)
        AND (ended_at IS NULL) = (delivered_completion_tokens IS NULL)
        AND (ended_at IS NULL) = (delivered_prompt_tokens IS NULL));
