-- Differential-privacy budgets (issue 7): per client organisation, per adapter, per period of the
-- serving version's policy. Spending is tracked as zCDP rho, which adds up exactly across
-- releases; the limit is the rho whose (epsilon, delta) conversion meets the policy's epsilon. The
-- budget row holds the running balance under a row lock; every reservation, settlement, refund and
-- top-up is also an append-only event, idempotent by (request id, kind).
CREATE TABLE dp_budget (
    id                     uuid           PRIMARY KEY,
    client_organisation_id uuid           NOT NULL REFERENCES organisation (id),
    adapter_id             uuid           NOT NULL REFERENCES adapter (id),
    period_start           timestamptz    NOT NULL,
    period_end             timestamptz    NOT NULL,
    delta                  numeric        NOT NULL CHECK (delta > 0 AND delta < 1),
    rho_limit              numeric(40,24) NOT NULL CHECK (rho_limit >= 0),
    rho_top_up             numeric(40,24) NOT NULL DEFAULT 0 CHECK (rho_top_up >= 0),
    rho_spent              numeric(40,24) NOT NULL DEFAULT 0,
    UNIQUE (client_organisation_id, adapter_id, period_start),
    CONSTRAINT dp_budget_period CHECK (period_end > period_start),
    CONSTRAINT dp_budget_never_overspent CHECK (rho_spent >= 0 AND rho_spent <= rho_limit + rho_top_up)
);

CREATE TABLE dp_budget_event (
    id            bigint         GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    budget_id     uuid           NOT NULL REFERENCES dp_budget (id),
    request_id    text           NOT NULL CHECK (length(request_id) BETWEEN 1 AND 128),
    kind          text           NOT NULL CHECK (kind IN ('reserve', 'settle', 'refund', 'top-up')),
    tokens        bigint         NOT NULL CHECK (tokens >= 0),
    rho           numeric(40,24) NOT NULL CHECK (rho >= 0),
    at            timestamptz    NOT NULL DEFAULT now(),
    UNIQUE (request_id, kind)
);
CREATE INDEX dp_budget_event_budget ON dp_budget_event (budget_id);

CREATE TRIGGER dp_budget_event_append_only BEFORE UPDATE OR DELETE ON dp_budget_event
    FOR EACH ROW EXECUTE FUNCTION forbid_change();
