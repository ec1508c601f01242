-- Trust boundaries (issue 18). The gateway records the most a request may bill, so that neither the
-- node's final event nor its usage report can charge past what the client asked for, and two more
-- ways a request ends: no node would take it, or the node it was sent to did not answer in time
-- (that node may have run it: its reservation is kept until its report settles it).
ALTER TABLE gateway_request
    ADD COLUMN max_prompt_tokens     bigint  CHECK (max_prompt_tokens >= 1),
    ADD COLUMN max_completion_tokens integer CHECK (max_completion_tokens >= 1);

ALTER TABLE gateway_request DROP CONSTRAINT gateway_request_outcome_check;
ALTER TABLE gateway_request ADD CONSTRAINT gateway_request_outcome_check
    CHECK (outcome IN ('completed', 'client_gone', 'node_failed', 'no_node', 'node_timeout'));
