-- The charge ledger (issues 5 and 7): one row per metered request, append-only and idempotent by
-- request id. Money is integer micro-units of the row's currency. Each row snapshots the price in
-- force when the request started and splits its amount exactly: creator + platform = amount.

ALTER TABLE adapter
    ADD COLUMN platform_take_basis_points integer
        CHECK (platform_take_basis_points BETWEEN 0 AND 10000);
COMMENT ON COLUMN adapter.platform_take_basis_points IS
    'per-adapter platform take in basis points; NULL uses tensafe.billing.platform-take-basis-points';

CREATE TABLE charge (
    id                          uuid        PRIMARY KEY,
    request_id                  text        NOT NULL UNIQUE CHECK (length(request_id) BETWEEN 1 AND 128),
    client_organisation_id      uuid        NOT NULL REFERENCES organisation (id),
    api_key_id                  uuid        REFERENCES api_key (id),
    adapter_version_id          uuid        NOT NULL REFERENCES adapter_version (id),
    adapter_price_id            bigint      NOT NULL REFERENCES adapter_price (id),
    currency                    char(3)     NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    prompt_tokens               bigint      NOT NULL CHECK (prompt_tokens >= 0),
    completion_tokens           bigint      NOT NULL CHECK (completion_tokens >= 0),
    prompt_micros_per_1k_tokens     bigint  NOT NULL CHECK (prompt_micros_per_1k_tokens > 0),
    completion_micros_per_1k_tokens bigint  NOT NULL CHECK (completion_micros_per_1k_tokens > 0),
    take_basis_points           integer     NOT NULL CHECK (take_basis_points BETWEEN 0 AND 10000),
    amount_micros               bigint      NOT NULL CHECK (amount_micros >= 0),
    creator_micros              bigint      NOT NULL CHECK (creator_micros >= 0),
    platform_micros             bigint      NOT NULL CHECK (platform_micros >= 0),
    route_reason                text,
    started_at                  timestamptz NOT NULL,
    recorded_at                 timestamptz NOT NULL DEFAULT now(),
    CHECK (creator_micros + platform_micros = amount_micros)
);
CREATE INDEX charge_adapter_version_started ON charge (adapter_version_id, started_at);
CREATE INDEX charge_client_started ON charge (client_organisation_id, started_at);

CREATE TRIGGER charge_append_only BEFORE UPDATE OR DELETE ON charge
    FOR EACH ROW EXECUTE FUNCTION forbid_change();
