-- A request from an API key's bucket without a slot (issue 33, ADR 0024): a private session's
-- frames draw from the same requests-per-minute bucket as the key's requests. admit_key_request
-- (V22) now takes its token through this function, so the bucket's arithmetic is written once.

-- Takes one request from p_key's bucket of p_per_minute per minute: 0 when taken, else the whole
-- seconds (>= 1) until the bucket allows one.
CREATE FUNCTION take_key_request(p_key uuid, p_per_minute double precision)
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
