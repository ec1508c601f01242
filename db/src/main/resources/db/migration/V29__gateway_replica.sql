-- Issue 34 (ADR 0026): which marketplace replica relays each hosted request. A replica that starts
-- again under the same name (tensafe.gateway.replica, else host:port) relays none of the requests
-- it had open before: at start it marks them as no longer vouched for, so a node's report or the
-- sweep ends them as gateway_lost at once, instead of after the report deadline.
ALTER TABLE gateway_request ADD COLUMN replica text;
CREATE INDEX gateway_request_open_by_replica ON gateway_request (replica)
    WHERE ended_at IS NULL AND mode = 'hosted';
