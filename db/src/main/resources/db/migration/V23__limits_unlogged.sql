-- Limit leases and rate buckets are ephemeral (ADR 0020): after a crash or a fail-over an empty
-- table only frees slots and refills buckets early, as a lapsed lease would. Unlogged, they cost no
-- WAL, and a call that touches only them commits without waiting for a WAL flush; the ledgers stay
-- logged and synchronous.
ALTER TABLE limit_lease SET UNLOGGED;
ALTER TABLE rate_bucket SET UNLOGGED;
