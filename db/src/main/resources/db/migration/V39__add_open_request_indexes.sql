-- One live set and one sweep for both modes (ADR 0039): the sweep's lost-request query and a
-- restarted replica's marking of its open requests no longer filter by mode, so the open requests'
-- indexes cover both modes; the per-mode ones they replace go.
CREATE INDEX gateway_request_open ON gateway_request (started_at) WHERE ended_at IS NULL;
CREATE INDEX gateway_request_open_by_any_replica ON gateway_request (replica)
    WHERE ended_at IS NULL;
DROP INDEX gateway_request_open_private;
DROP INDEX gateway_request_open_hosted;
DROP INDEX gateway_request_open_by_replica;
