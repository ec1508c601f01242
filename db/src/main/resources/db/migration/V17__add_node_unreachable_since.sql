-- A node the gateway could not connect to is unhealthy at once, not when its heartbeats go stale
-- (issue 19): set on a failed connection, cleared by the node's next registration or heartbeat.
ALTER TABLE node
    ADD COLUMN unreachable_since timestamptz,
    ADD COLUMN unreachable_cause text CHECK (length(unreachable_cause) <= 500);
