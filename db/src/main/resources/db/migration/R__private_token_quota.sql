-- Private sessions' token quota (issue 49; tables in V34__private_mode_opt_in.sql). A session
-- reserves its most tokens (max_prompt_tokens + max_tokens) in its admission's transaction, right
-- after the admission's call recorded it and reserved its DP budget, and is settled to the tokens
-- it was billed (prompt + completion, the marketplace's count of what it relayed) when its
-- gateway_request ends, whichever path ends it: the client's close, the idle timeout, a failed
-- node, an admission that no node served (0: the whole reservation comes back), the orphan sweep.
-- Repeatable: Flyway re-applies this file whenever its text changes.

-- Reserves p_tokens of organisation p_org's quota of version p_version for request p_request, in
-- the period containing p_at. One conditional UPDATE of the period's row: concurrent reservations
-- queue on its row lock and each re-checks the condition against the row the one before it left
-- (READ COMMITTED re-evaluates an UPDATE's WHERE on the newest row), so the quota is never
-- exceeded and no reservation is lost.
--
-- outcome: 'reserved'; 'not_offered' (no offer, or withdrawn: every other column null); 'refused'
-- (the quota cannot cover it now: nothing written but the period's row). quota_taken is the
-- period's reserved + settled tokens after the reservation (refused: as found), quota_in_flight
-- (refused only) the part of it held by sessions still open.
CREATE OR REPLACE FUNCTION reserve_private_tokens(
    p_request uuid, p_org uuid, p_version uuid, p_tokens bigint, p_at timestamptz)
RETURNS TABLE (outcome text, quota_tokens bigint, quota_days integer,
               quota_period_end timestamptz, quota_taken bigint, quota_in_flight bigint)
LANGUAGE plpgsql AS $$
DECLARE
    offer private_mode_offer%ROWTYPE;
    v_start timestamptz;
    v_end timestamptz;
    v_taken bigint;
BEGIN
    SELECT * INTO offer FROM private_mode_offer m WHERE m.adapter_version_id = p_version;
    IF NOT FOUND OR NOT offer.offered THEN
        RETURN QUERY SELECT 'not_offered'::text, NULL::bigint, NULL::integer,
            NULL::timestamptz, NULL::bigint, NULL::bigint;
        RETURN;
    END IF;
    -- Periods aligned to the Unix epoch, as DP budgets' (privacy.BudgetMaths.periodStart); hours,
    -- not days, so that the session's time zone never moves them.
    v_start := timestamptz 'epoch' + make_interval(hours =>
        (floor(extract(epoch FROM p_at) / (offer.period_days * 86400)) * offer.period_days * 24)::integer);
    v_end := v_start + make_interval(hours => offer.period_days * 24);
    INSERT INTO private_token_use (client_organisation_id, adapter_version_id, period_start,
                                   period_end)
    VALUES (p_org, p_version, v_start, v_end)
    ON CONFLICT DO NOTHING;
    UPDATE private_token_use u SET tokens_taken = u.tokens_taken + p_tokens
    WHERE u.client_organisation_id = p_org AND u.adapter_version_id = p_version
      AND u.period_start = v_start AND u.tokens_taken + p_tokens <= offer.tokens_per_period
    RETURNING u.tokens_taken INTO v_taken;
    IF FOUND THEN
        INSERT INTO private_token_reservation (request_id, client_organisation_id,
            adapter_version_id, period_start, tokens_reserved)
        VALUES (p_request, p_org, p_version, v_start, p_tokens);
        RETURN QUERY SELECT 'reserved'::text, offer.tokens_per_period, offer.period_days, v_end,
            v_taken, NULL::bigint;
        RETURN;
    END IF;
    SELECT u.tokens_taken INTO v_taken FROM private_token_use u
    WHERE u.client_organisation_id = p_org AND u.adapter_version_id = p_version
      AND u.period_start = v_start;
    RETURN QUERY SELECT 'refused'::text, offer.tokens_per_period, offer.period_days, v_end, v_taken,
        (SELECT coalesce(sum(r.tokens_reserved), 0) FROM private_token_reservation r
         WHERE r.client_organisation_id = p_org AND r.adapter_version_id = p_version
           AND r.period_start = v_start AND r.settled_at IS NULL)::bigint;
END $$;

-- Settles request p_request's reservation, if it has one still open, to p_used tokens (clamped
-- to [0, reserved]) and gives the rest back to its period's row. Returns the tokens given back,
-- or -1 when there was nothing to settle (no reservation, or settled already: a second end gives
-- nothing back twice).
CREATE OR REPLACE FUNCTION settle_private_tokens(p_request uuid, p_used bigint)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    r private_token_reservation%ROWTYPE;
BEGIN
    UPDATE private_token_reservation t
    SET tokens_used = least(greatest(p_used, 0), t.tokens_reserved), settled_at = now()
    WHERE t.request_id = p_request AND t.settled_at IS NULL
    RETURNING t.* INTO r;
    IF NOT FOUND THEN
        RETURN -1;
    END IF;
    UPDATE private_token_use u SET tokens_taken = u.tokens_taken - (r.tokens_reserved - r.tokens_used)
    WHERE u.client_organisation_id = r.client_organisation_id
      AND u.adapter_version_id = r.adapter_version_id AND u.period_start = r.period_start;
    RETURN r.tokens_reserved - r.tokens_used;
END $$;

CREATE OR REPLACE FUNCTION settle_private_tokens_at_end()
RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM settle_private_tokens(NEW.request_id,
        coalesce(NEW.delivered_prompt_tokens, 0)::bigint
            + coalesce(NEW.delivered_completion_tokens, 0));
    RETURN NULL;
END $$;

-- A private session's end settles its tokens. Deferred to the commit, so that the quota's row is
-- locked last, after the DP budget's, as in the admission (which reserves the DP budget in its
-- call and the tokens after it): the two never wait on each other in opposite orders.
DROP TRIGGER IF EXISTS gateway_request_settles_private_tokens ON gateway_request;
CREATE CONSTRAINT TRIGGER gateway_request_settles_private_tokens
    AFTER UPDATE OF ended_at ON gateway_request
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL AND NEW.mode = 'private')
    EXECUTE FUNCTION settle_private_tokens_at_end();
