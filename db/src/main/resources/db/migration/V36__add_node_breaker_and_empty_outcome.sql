-- Issue 51 (ADR 0038): what a node operator could still be paid for. Schema only; the rules that
-- read these columns live in R__node_choice.sql.
--
-- 1. A node that fails fast is demoted (a circuit breaker): failure_streak counts the requests it
--    failed in a row (a broken stream, an error event, a stall, a failure before answering) and
--    tripped_until, set once the streak reaches its threshold, keeps it out of dispatch until then.
--    A completed request with text resets both.
-- 2. An answer with no text ends as 'empty', not 'completed': it earns no slot (node_served counts
--    'completed' only) and does not reset the breaker.
ALTER TABLE node
    ADD COLUMN failure_streak integer NOT NULL DEFAULT 0
        CONSTRAINT node_failure_streak_not_negative CHECK (failure_streak >= 0),
    ADD COLUMN tripped_until timestamptz;

ALTER TABLE gateway_request DROP CONSTRAINT gateway_request_outcome_check;
ALTER TABLE gateway_request ADD CONSTRAINT gateway_request_outcome_check
    CHECK (outcome IN ('completed', 'client_gone', 'node_failed', 'no_node', 'node_timeout',
                       'rejected', 'gateway_lost', 'empty'));
