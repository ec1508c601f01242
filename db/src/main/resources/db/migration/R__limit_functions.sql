-- Repeatable (ADR 0038): the one current copy of these functions. Flyway re-applies this file
-- after the versioned migrations whenever its text changes; change them here, never in a new
-- versioned migration (the versioned files that first created them are history).
--
-- One round trip per limit decision (ADR 0020): taking a slot and admitting an API key's request
-- are functions, so the lock, the count and the insert need no further trips from the replica.

-- Takes one of p_subject's p_max slots for replica p_holder: true and a lease row, or false when
-- p_max live leases exist. The advisory lock is held to the end of the caller's transaction.
CREATE OR REPLACE FUNCTION take_limit_lease(p_id uuid, p_kind text, p_subject uuid, p_holder uuid,
                                 p_ttl_seconds double precision, p_max integer)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_subject::text, 11));
    IF (SELECT count(*) FROM limit_lease
        WHERE subject = p_subject AND expires_at > clock_timestamp()) >= p_max THEN
        RETURN false;
    END IF;
    INSERT INTO limit_lease (id, kind, subject, holder, expires_at)
    VALUES (p_id, p_kind, p_subject, p_holder,
            clock_timestamp() + make_interval(secs => p_ttl_seconds));
    RETURN true;
END $$;

-- Takes one request from p_key's bucket of p_per_minute per minute: 0 when taken, else the whole
-- seconds (>= 1) until the bucket allows one. A private session's frames draw from the same bucket
-- as the key's requests (ADR 0024).
CREATE OR REPLACE FUNCTION take_key_request(p_key uuid, p_per_minute double precision)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    t timestamptz := clock_timestamp();
    level double precision;
BEGIN
    INSERT INTO rate_bucket AS b (key_id, available, granted, refilled_at)
    VALUES (p_key, p_per_minute - 1, true, t)
    ON CONFLICT (key_id) DO UPDATE SET
        available = CASE WHEN least(p_per_minute, b.available + extract(epoch FROM t - b.refilled_at) * p_per_minute / 60.0) >= 1
                         THEN least(p_per_minute, b.available + extract(epoch FROM t - b.refilled_at) * p_per_minute / 60.0) - 1
                         ELSE least(p_per_minute, b.available + extract(epoch FROM t - b.refilled_at) * p_per_minute / 60.0) END,
        granted = least(p_per_minute, b.available + extract(epoch FROM t - b.refilled_at) * p_per_minute / 60.0) >= 1,
        refilled_at = t
    RETURNING CASE WHEN b.granted THEN -1 ELSE b.available END INTO level;
    IF level >= 0 THEN
        RETURN greatest(1, ceil((1 - level) * 60.0 / p_per_minute))::integer;
    END IF;
    RETURN 0;
END $$;

-- Admits one request of API key p_key: one from its bucket (take_key_request), then one of its
-- p_max slots (lease p_lease). Returns 0 when admitted, the seconds until the bucket allows one
-- (>= 1) when it is empty, or -1 when every slot is held (the bucket's token is spent, as a refused
-- request still counts against the rate).
CREATE OR REPLACE FUNCTION admit_key_request(p_key uuid, p_per_minute double precision, p_lease uuid,
                                             p_holder uuid, p_ttl_seconds double precision, p_max integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    wait integer := take_key_request(p_key, p_per_minute);
BEGIN
    IF wait > 0 THEN
        RETURN wait;
    END IF;
    IF take_limit_lease(p_lease, 'key', p_key, p_holder, p_ttl_seconds, p_max) THEN
        RETURN 0;
    END IF;
    RETURN -1;
END $$;

-- Takes one of API key p_key's p_key_max slots (lease p_lease, for replica p_holder) within its
-- organisation p_org's in-flight limit (organisation_limit_rule): null when taken, else
-- 'key_busy' or 'organisation_busy'. Locks the key, then the organisation (every transaction takes
-- them in that order, before any node's), to the end of the caller's transaction.
CREATE OR REPLACE FUNCTION take_key_lease(p_lease uuid, p_key uuid, p_org uuid, p_holder uuid,
                                          p_ttl_seconds double precision, p_key_max integer)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_key::text, 11));
    IF (SELECT count(*) FROM limit_lease
        WHERE subject = p_key AND expires_at > clock_timestamp()) >= p_key_max THEN
        RETURN 'key_busy';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended(p_org::text, 13));
    IF (SELECT count(*) FROM limit_lease
        WHERE scope = p_org AND expires_at > clock_timestamp())
       >= (SELECT r.max_in_flight FROM organisation_limit_rule r) THEN
        RETURN 'organisation_busy';
    END IF;
    INSERT INTO limit_lease (id, kind, subject, holder, expires_at, scope)
    VALUES (p_lease, 'key', p_key, p_holder,
            clock_timestamp() + make_interval(secs => p_ttl_seconds), p_org);
    RETURN NULL;
END $$;
