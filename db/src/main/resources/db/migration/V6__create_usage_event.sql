-- Usage reports from inference nodes (issue 6): one row per request id, append-only. A node
-- re-sends a report until it is acknowledged, so a request id that is already recorded with the
-- same content is acknowledged again without a second row; different content under the same id is
-- refused. The charge for a request (issue 7) is made from its usage event.
CREATE TABLE usage_event (
    request_id           uuid             PRIMARY KEY,
    node_id              uuid             NOT NULL REFERENCES node (id),
    adapter_ref          text             CHECK (adapter_ref IS NULL OR length(adapter_ref) BETWEEN 1 AND 64),
    adapter_version      text             CHECK (adapter_version IS NULL OR length(adapter_version) BETWEEN 5 AND 32),
    prompt_tokens        integer          NOT NULL CHECK (prompt_tokens >= 0),
    completion_tokens    integer          NOT NULL CHECK (completion_tokens >= 0),
    finish_reason        text             NOT NULL CHECK (finish_reason IN ('stop', 'length', 'cancelled')),
    dp_releases          bigint           NOT NULL CHECK (dp_releases >= 0),
    dp_noise_multiplier  double precision NOT NULL CHECK (dp_noise_multiplier >= 0),
    he_calls             bigint           NOT NULL CHECK (he_calls >= 0),
    he_encryptions       bigint           NOT NULL CHECK (he_encryptions >= 0),
    he_products          bigint           NOT NULL CHECK (he_products >= 0),
    he_decryptions       bigint           NOT NULL CHECK (he_decryptions >= 0),
    he_millis            double precision NOT NULL CHECK (he_millis >= 0),
    total_millis         double precision NOT NULL CHECK (total_millis >= 0),
    started_at           timestamptz      NOT NULL,
    finished_at          timestamptz      NOT NULL,
    received_at          timestamptz      NOT NULL DEFAULT now(),
    report_sha256        char(64)         NOT NULL,
    CONSTRAINT usage_event_adapter_pair CHECK ((adapter_ref IS NULL) = (adapter_version IS NULL))
);
CREATE INDEX usage_event_node ON usage_event (node_id);
CREATE INDEX usage_event_adapter ON usage_event (adapter_ref, adapter_version);

CREATE TRIGGER usage_event_append_only BEFORE UPDATE OR DELETE ON usage_event
    FOR EACH ROW EXECUTE FUNCTION forbid_change();
