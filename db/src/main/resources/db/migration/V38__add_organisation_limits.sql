-- Issue 51 (ADR 0038): many keys bypassed every limit, since rate and concurrency were per key and
-- any member can create keys. An organisation's requests per minute and in flight are limited
-- too, shared across replicas like the key limits: its requests draw from a bucket of its own
-- (rate_bucket, keyed by the organisation's id) and each key lease records its organisation
-- (scope), which take_key_lease (R__limit_functions.sql) counts.
ALTER TABLE limit_lease ADD COLUMN scope uuid;
CREATE INDEX limit_lease_scope ON limit_lease (scope, expires_at) WHERE scope IS NOT NULL;

-- One row, written by each marketplace replica at start from tensafe.limits.organisation-*
-- (limits.OrganisationLimitRule): the limits every organisation gets.
CREATE TABLE organisation_limit_rule (
    only_row            boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    requests_per_minute integer NOT NULL CHECK (requests_per_minute >= 1),
    max_in_flight       integer NOT NULL CHECK (max_in_flight >= 1)
);
INSERT INTO organisation_limit_rule VALUES (true, 6000, 256);
