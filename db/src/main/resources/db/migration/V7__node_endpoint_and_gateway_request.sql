-- Dispatch (issue 7): where a node accepts generation requests, and each metered request the
-- gateway dispatched, so that a node's usage report can be charged to the right client even when
-- the stream did not finish (the client went away, or the node died after sending tokens).
ALTER TABLE node ADD COLUMN endpoint text
    CHECK (endpoint IS NULL OR endpoint ~ '^https?://[^\s]{1,200}$');

CREATE TABLE gateway_request (
    request_id             uuid        PRIMARY KEY,
    client_organisation_id uuid        NOT NULL REFERENCES organisation (id),
    api_key_id             uuid        REFERENCES api_key (id),
    adapter_ref            text        NOT NULL,
    adapter_version        text        NOT NULL,
    route_reason           text,
    node_id                uuid        REFERENCES node (id),
    started_at             timestamptz NOT NULL
);
CREATE INDEX gateway_request_client ON gateway_request (client_organisation_id, started_at);

CREATE TRIGGER gateway_request_append_only BEFORE DELETE ON gateway_request
    FOR EACH ROW EXECUTE FUNCTION forbid_change();
