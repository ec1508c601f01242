-- Identity, catalogue, prices, API keys and the node fleet registry (issue 5). Rows that record
-- history (prices, audit) are append-only: a trigger refuses UPDATE and DELETE on them.

CREATE FUNCTION forbid_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END
$$;

-- People, mapped from OIDC subjects on first contact. Each belongs to one organisation.
CREATE TABLE app_user (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    oidc_subject    text        NOT NULL UNIQUE CHECK (char_length(oidc_subject) BETWEEN 1 AND 255),
    organisation_id uuid        NOT NULL REFERENCES organisation (id),
    username        text        NOT NULL CHECK (char_length(username) BETWEEN 1 AND 255),
    email           text        CHECK (email IS NULL OR char_length(email) <= 320),
    created_at      timestamptz NOT NULL DEFAULT now(),
    suspended_at    timestamptz
);
CREATE INDEX app_user_organisation ON app_user (organisation_id);

-- A creator is an organisation that sells adapters; creator_ref is the id in TGSP manifests.
CREATE TABLE creator (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    organisation_id uuid        NOT NULL UNIQUE REFERENCES organisation (id),
    creator_ref     text        NOT NULL UNIQUE CHECK (creator_ref ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    created_at      timestamptz NOT NULL DEFAULT now(),
    suspended_at    timestamptz
);

-- Hybrid signing keys (Ed25519 + ML-DSA-65). key_id is derived from both keys (TGSP v2 §3.1).
CREATE TABLE creator_signing_key (
    key_id          char(32)    PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{32}$'),
    creator_id      uuid        NOT NULL REFERENCES creator (id),
    document        text        NOT NULL,  -- the canonical public key file, as registered
    registered_at   timestamptz NOT NULL DEFAULT now(),
    registered_by   uuid        NOT NULL REFERENCES app_user (id),
    revoked_at      timestamptz,
    revoked_by      uuid        REFERENCES app_user (id),
    CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
);
CREATE INDEX creator_signing_key_creator ON creator_signing_key (creator_id);

-- Node fleets: the recipients of packages. The marketplace holds only the public KEM keys.
CREATE TABLE node_fleet (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    fleet_ref       text        NOT NULL UNIQUE CHECK (fleet_ref ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    key_id          char(32)    NOT NULL UNIQUE CHECK (key_id ~ '^[0-9a-f]{32}$'),
    document        text        NOT NULL,  -- the canonical fleet public key file (X25519 + ML-KEM-768)
    created_at      timestamptz NOT NULL DEFAULT now(),
    retired_at      timestamptz
);

CREATE TABLE node (
    id                 uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    fleet_id           uuid        NOT NULL REFERENCES node_fleet (id),
    client_id          text        NOT NULL CHECK (char_length(client_id) BETWEEN 1 AND 255),
    name               text        NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    base_models        text[]      NOT NULL,
    accelerator        text        NOT NULL CHECK (accelerator IN ('cpu', 'gpu')),
    max_concurrency    integer     NOT NULL CHECK (max_concurrency BETWEEN 1 AND 4096),
    loaded_adapters    text[]      NOT NULL DEFAULT '{}',
    registered_at      timestamptz NOT NULL DEFAULT now(),
    last_heartbeat_at  timestamptz NOT NULL DEFAULT now(),
    suspended_at       timestamptz,
    UNIQUE (client_id, name)
);

-- DP policies as declared in signed manifests (clip norm, noise multiplier, delta, budget).
CREATE TABLE dp_policy (
    id                        uuid    PRIMARY KEY DEFAULT gen_random_uuid(),
    clip_norm                 numeric NOT NULL CHECK (clip_norm > 0),
    noise_multiplier          numeric NOT NULL CHECK (noise_multiplier > 0),
    delta                     numeric NOT NULL CHECK (delta > 0 AND delta <= 0.001),
    epsilon_budget_per_period numeric NOT NULL CHECK (epsilon_budget_per_period > 0),
    period_days               integer NOT NULL CHECK (period_days BETWEEN 1 AND 366)
);

-- An adapter is a product line; adapter_ref (the manifest's adapter id) is the model name clients use.
CREATE TABLE adapter (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    creator_id      uuid        NOT NULL REFERENCES creator (id),
    adapter_ref     text        NOT NULL UNIQUE CHECK (adapter_ref ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    created_at      timestamptz NOT NULL DEFAULT now(),
    suspended_at    timestamptz
);
CREATE INDEX adapter_creator ON adapter (creator_id);

CREATE TABLE adapter_version (
    id                uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    adapter_id        uuid        NOT NULL REFERENCES adapter (id),
    version           text        NOT NULL CHECK (version ~ '^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$'),
    version_major     integer     NOT NULL,
    version_minor     integer     NOT NULL,
    version_patch     integer     NOT NULL,
    package_id        uuid        NOT NULL UNIQUE,
    signing_key_id    char(32)    NOT NULL REFERENCES creator_signing_key (key_id),
    fleet_id          uuid        NOT NULL REFERENCES node_fleet (id),
    base_model        text        NOT NULL,
    rank              integer     NOT NULL CHECK (rank BETWEEN 1 AND 4096),
    alpha             numeric     NOT NULL CHECK (alpha > 0),
    scaling           text        NOT NULL CHECK (scaling IN ('alpha_over_rank', 'alpha_over_sqrt_rank')),
    target_modules    text[]      NOT NULL,
    keywords          text[]      NOT NULL,
    domain            text        NOT NULL,
    licence           text        NOT NULL,
    dp_policy_id      uuid        NOT NULL REFERENCES dp_policy (id),
    manifest          jsonb       NOT NULL,
    package_sha256    char(64)    NOT NULL CHECK (package_sha256 ~ '^[0-9a-f]{64}$'),
    package_bytes     bigint      NOT NULL CHECK (package_bytes > 0),
    state             text        NOT NULL DEFAULT 'draft'
                                  CHECK (state IN ('draft', 'published', 'unpublished', 'suspended')),
    uploaded_at       timestamptz NOT NULL DEFAULT now(),
    uploaded_by       uuid        NOT NULL REFERENCES app_user (id),
    published_at      timestamptz,
    UNIQUE (adapter_id, version),
    UNIQUE (adapter_id, version_major, version_minor, version_patch)
);
CREATE INDEX adapter_version_state ON adapter_version (state);
CREATE INDEX adapter_version_domain ON adapter_version (domain);
CREATE INDEX adapter_version_keywords ON adapter_version USING gin (keywords);

-- Price history: a row takes effect at effective_from and is never changed; the price of a
-- request is the row with the latest effective_from not after the request's time.
CREATE TABLE adapter_price (
    id                                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    adapter_version_id                uuid        NOT NULL REFERENCES adapter_version (id),
    currency                          char(3)     NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    prompt_micros_per_1k_tokens       bigint      NOT NULL CHECK (prompt_micros_per_1k_tokens > 0),
    completion_micros_per_1k_tokens   bigint      NOT NULL CHECK (completion_micros_per_1k_tokens > 0),
    effective_from                    timestamptz NOT NULL,
    created_at                        timestamptz NOT NULL DEFAULT now(),
    created_by                        uuid        NOT NULL REFERENCES app_user (id),
    CHECK (effective_from >= created_at - interval '1 second'),  -- never retroactive
    UNIQUE (adapter_version_id, effective_from)
);
CREATE TRIGGER adapter_price_append_only BEFORE UPDATE OR DELETE ON adapter_price
    FOR EACH ROW EXECUTE FUNCTION forbid_change();

-- Client API keys: shown once, stored as SHA-256 of the secret; prefix is the visible id.
CREATE TABLE api_key (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    organisation_id uuid        NOT NULL REFERENCES organisation (id),
    prefix          text        NOT NULL UNIQUE CHECK (prefix ~ '^tsk_[0-9a-f]{12}$'),
    secret_sha256   bytea       NOT NULL UNIQUE CHECK (octet_length(secret_sha256) = 32),
    name            text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    created_at      timestamptz NOT NULL DEFAULT now(),
    created_by      uuid        NOT NULL REFERENCES app_user (id),
    revoked_at      timestamptz,
    suspended_at    timestamptz
);
CREATE INDEX api_key_organisation ON api_key (organisation_id);

-- Optional scope: when a key has rows here, it may use only these adapters.
CREATE TABLE api_key_adapter (
    api_key_id uuid NOT NULL REFERENCES api_key (id),
    adapter_id uuid NOT NULL REFERENCES adapter (id),
    PRIMARY KEY (api_key_id, adapter_id)
);

-- Every state change made by a person.
CREATE TABLE audit_log (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT now(),
    actor_user_id uuid        REFERENCES app_user (id),
    actor_subject text        NOT NULL,
    action        text        NOT NULL,
    target_type   text        NOT NULL,
    target_id     text        NOT NULL,
    details       jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_target ON audit_log (target_type, target_id);
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION forbid_change();
