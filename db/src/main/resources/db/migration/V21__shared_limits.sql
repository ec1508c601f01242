-- Limits that hold across marketplace replicas (issue 24, ADR 0020). A lease is one slot of an API
-- key's concurrent requests or of a node's concurrency, held by one replica until it gives it back
-- or it expires (the replica renews its own leases while it lives). A rate bucket is an API key's
-- requests-per-minute allowance.
CREATE TABLE limit_lease (
    id         uuid        PRIMARY KEY,
    kind       text        NOT NULL CHECK (kind IN ('key', 'node')),
    subject    uuid        NOT NULL,
    holder     uuid        NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX limit_lease_subject ON limit_lease (subject, expires_at);
CREATE INDEX limit_lease_holder ON limit_lease (holder);

CREATE TABLE rate_bucket (
    key_id      uuid             PRIMARY KEY,
    available   double precision NOT NULL CHECK (available >= 0),
    granted     boolean          NOT NULL,
    refilled_at timestamptz      NOT NULL
);
