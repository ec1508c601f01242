-- Issue 49: private mode is its creator's choice, with a per-organisation token quota per period.
-- A private session hands its client each adapted site's delta B·A·x for inputs the client
-- chooses, so a modified client can rebuild a site's B·A from a few hundred tokens. A version
-- serves private sessions only when its creator offers private mode for it (private_mode_offer),
-- and each client organisation may run at most tokens_per_period tokens (prompt + completion) of
-- private sessions of it per period of period_days days, periods aligned to the Unix epoch as DP
-- budgets' are. Sessions reserve their most tokens at admission and settle to what was relayed
-- when they end (functions and trigger in R__private_token_quota.sql).
--
-- Existing versions: no row, so private mode is off for every version until its creator offers
-- it (PUT /api/creator/adapters/{adapter}/versions/{version}/private-mode). A default of "on" for
-- versions already used in private mode would keep serving clients an adapter whose creator never
-- chose to expose it; the demo seed offers it through the API like any creator.

-- The creator's offer for a version; no row is "not offered". The quota is kept while the offer
-- is withdrawn, so offering it again restores it.
CREATE TABLE private_mode_offer (
    adapter_version_id uuid        PRIMARY KEY REFERENCES adapter_version (id),
    offered            boolean     NOT NULL,
    tokens_per_period  bigint      CONSTRAINT private_mode_offer_tokens
                                   CHECK (tokens_per_period BETWEEN 1 AND 9007199254740991),
    period_days        integer     CONSTRAINT private_mode_offer_period_days
                                   CHECK (period_days BETWEEN 1 AND 366),
    set_by             uuid        NOT NULL REFERENCES app_user (id),
    set_at             timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT private_mode_offer_quota_when_offered
        CHECK (NOT offered OR (tokens_per_period IS NOT NULL AND period_days IS NOT NULL))
);

-- One organisation's private tokens of one version in one period: reserved by sessions in flight
-- plus settled by sessions that ended. Never above the quota at the time of each reservation (the
-- conditional UPDATE of reserve_private_tokens); a quota the creator lowers later applies to the
-- reservations after it.
CREATE TABLE private_token_use (
    client_organisation_id uuid        NOT NULL REFERENCES organisation (id),
    adapter_version_id     uuid        NOT NULL REFERENCES adapter_version (id),
    period_start           timestamptz NOT NULL,
    period_end             timestamptz NOT NULL,
    tokens_taken           bigint      NOT NULL DEFAULT 0
                                       CONSTRAINT private_token_use_taken CHECK (tokens_taken >= 0),
    PRIMARY KEY (client_organisation_id, adapter_version_id, period_start),
    CONSTRAINT private_token_use_period CHECK (period_end > period_start)
);

-- Each private session's reservation (its gateway_request), and what it settled to: settled once,
-- when its request ends, never above what it reserved.
CREATE TABLE private_token_reservation (
    request_id             uuid        PRIMARY KEY REFERENCES gateway_request (request_id),
    client_organisation_id uuid        NOT NULL,
    adapter_version_id     uuid        NOT NULL,
    period_start           timestamptz NOT NULL,
    tokens_reserved        bigint      NOT NULL
                                       CONSTRAINT private_token_reservation_reserved
                                       CHECK (tokens_reserved >= 1),
    tokens_used            bigint,
    reserved_at            timestamptz NOT NULL DEFAULT now(),
    settled_at             timestamptz,
    FOREIGN KEY (client_organisation_id, adapter_version_id, period_start)
        REFERENCES private_token_use (client_organisation_id, adapter_version_id, period_start),
    CONSTRAINT private_token_reservation_used
        CHECK ((settled_at IS NULL AND tokens_used IS NULL)
               OR (settled_at IS NOT NULL AND tokens_used BETWEEN 0 AND tokens_reserved))
);
CREATE INDEX private_token_reservation_in_flight
    ON private_token_reservation (client_organisation_id, adapter_version_id, period_start)
    WHERE settled_at IS NULL;
