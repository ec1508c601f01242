-- Issue 34 (ADR 0026): a request is billed from what the marketplace relayed, never a node's word.
-- relayed_completion_tokens: the completion tokens the gateway relayed so far, written while a
--   hosted request streams (every 64 pieces) and at its end; a node's report of a request whose
--   gateway died is billed at most this.
-- node_completion_tokens: the node's own count, kept beside the bill as a cross-check (admins see
--   the differences per node); null when the node claimed none.
-- 'gateway_lost': the request's gateway died before it ended it; the sweep or the node's report
--   ended it, billed at most what was relayed.
ALTER TABLE gateway_request
    ADD COLUMN relayed_completion_tokens integer CHECK (relayed_completion_tokens >= 0),
    ADD COLUMN node_completion_tokens integer CHECK (node_completion_tokens >= 0);
ALTER TABLE gateway_request DROP CONSTRAINT gateway_request_outcome_check;
ALTER TABLE gateway_request ADD CONSTRAINT gateway_request_outcome_check
    CHECK (outcome IN ('completed', 'client_gone', 'node_failed', 'no_node', 'node_timeout',
                       'rejected', 'gateway_lost'));
CREATE INDEX gateway_request_open_hosted ON gateway_request (started_at)
    WHERE ended_at IS NULL AND mode = 'hosted';
