-- Issue 35: each organisation's ceiling for what `auto` may route its requests to, per 1,000
-- tokens, set by one of its owners. An organisation without a row has the platform's default
-- (tensafe.gateway.auto-cap.*), so `auto` always has a ceiling. Adapters priced in another
-- currency are never routed to by `auto` for it.
CREATE TABLE organisation_auto_cap (
    organisation_id                 uuid        PRIMARY KEY REFERENCES organisation (id),
    currency                        char(3)     NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    prompt_micros_per_1k_tokens     bigint      NOT NULL
                                    CHECK (prompt_micros_per_1k_tokens BETWEEN 1 AND 9007199254740991),
    completion_micros_per_1k_tokens bigint      NOT NULL
                                    CHECK (completion_micros_per_1k_tokens BETWEEN 1 AND 9007199254740991),
    set_by                          uuid        NOT NULL REFERENCES app_user (id),
    set_at                          timestamptz NOT NULL DEFAULT now()
);
