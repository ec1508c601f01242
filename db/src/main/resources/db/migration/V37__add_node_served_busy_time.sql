-- Issue 51 (ADR 0038): a node earns slots from what it is seen to sustain, not only from a count.
-- busy_ms is the summed duration (admission to end) of the requests counted in completed, so
-- busy_ms / 60000 is the node's mean concurrency over that minute (Little's law), which
-- node_slots (R__node_choice.sql) reads. Rows written before this column count 0.
ALTER TABLE node_served
    ADD COLUMN busy_ms bigint NOT NULL DEFAULT 0
        CONSTRAINT node_served_busy_not_negative CHECK (busy_ms >= 0);
