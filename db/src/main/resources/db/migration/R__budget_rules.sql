-- Repeatable (ADR 0038, ADR 0040): the one current copy of how a DP budget's reservation is
-- closed. Flyway re-applies this file after the versioned migrations whenever its text changes;
-- change the rules here, never in a new versioned migration.

-- The ρ of p_releases of a reservation of p_reserved (≥ 1) releases that cost p_rho (≥ 0):
-- p_rho · p_releases / p_reserved rounded up at 24 decimal places (every stored ρ's scale, so
-- rounding never grants more than a policy allows), and never more than p_rho. p_releases ≥ 0.
CREATE OR REPLACE FUNCTION reservation_share(p_rho numeric, p_releases bigint, p_reserved bigint)
RETURNS numeric LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    -- In units of 10^-24 the product is a whole number, so div(n + d - 1, d) is its exact ceiling.
    RETURN least(p_rho,
        div(p_rho * p_releases * 1000000000000000000000000 + p_reserved - 1, p_reserved)
            * 0.000000000000000000000001);
END $$;

-- Closes request p_request's DP reservation, under the request's lock (the one the admission and
-- the usage reports take: pg_advisory_xact_lock(hashtextextended(request id, 7))), so that one
-- request's settlement, bound and refund are serialised without locking its budget, whose row is
-- locked only by the final balance update:
--   'settle' p_releases: spends the share of those releases (clamped to [0, reserved]) and gives
--       the rest back. With p_reported false, p_releases outside [0, reserved] raises 22023 and
--       changes nothing. With p_reported (a node's count, or the marketplace's own count at a
--       request's end), a reservation already settled to its bound is lowered to p_releases when
--       that is less (never raised; once).
--   'bound' p_releases: a bound event, clamped to [0, reserved] whoever counted it (a bound of
--       prompt + relayed + run-ahead exceeds a reservation whose max_tokens is below the run-ahead),
--       that a later reported settle can only lower.
-- A 'settle' or 'bound' without p_releases or p_reported raises 22023 (a null never refunds).
--   'refund': gives the whole reservation back (its event records the ρ given back).
-- Returns status 'settled' (an open reservation was closed), 'lowered' (a bound was lowered) or
-- 'closed' (nothing to do: none open, or already lowered), the releases reserved (null when
-- 'closed') and, unless 'closed', the budget's ρ spent and δ after it, from which the caller
-- reports ε (the RDP conversion lives in Java).
CREATE OR REPLACE FUNCTION close_reservation(
    p_request text, p_kind text, p_releases bigint, p_reported boolean,
    OUT status text, OUT reserved bigint, OUT rho_spent numeric, OUT delta numeric)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    b record;
    v_kept bigint;
    v_used numeric;
    v_back numeric;
BEGIN
    IF p_request IS NULL OR length(p_request) NOT BETWEEN 1 AND 128 THEN
        RAISE EXCEPTION 'a request id has 1 to 128 characters' USING ERRCODE = '22023';
    END IF;
    IF p_kind NOT IN ('settle', 'bound', 'refund') THEN
        RAISE EXCEPTION 'a reservation closes by settle, bound or refund, not %', p_kind
            USING ERRCODE = '22023';
    END IF;
    IF p_kind <> 'refund' AND (p_releases IS NULL OR p_reported IS NULL) THEN
        RAISE EXCEPTION 'a % needs its releases and whether they were reported', p_kind
            USING ERRCODE = '22023';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended(p_request, 7));
    SELECT e.budget_id, e.releases, e.rho INTO r
    FROM dp_budget_event e
    WHERE e.request_id = p_request AND e.kind = 'reserve'
      AND NOT EXISTS (SELECT 1 FROM dp_budget_event f WHERE f.request_id = p_request
                      AND f.kind IN ('settle', 'refund', 'bound'));
    IF FOUND THEN
        IF p_kind = 'refund' THEN
            v_kept := 0;
            v_used := r.rho;
            v_back := r.rho;
        ELSE
            IF p_kind = 'settle' AND NOT p_reported
               AND (p_releases < 0 OR p_releases > r.releases) THEN
                RAISE EXCEPTION 'settled releases must be in [0, %], was %', r.releases, p_releases
                    USING ERRCODE = '22023';
            END IF;
            v_kept := least(greatest(p_releases, 0), r.releases);
            v_used := reservation_share(r.rho, v_kept, r.releases);
            v_back := r.rho - v_used;
        END IF;
        INSERT INTO dp_budget_event (budget_id, request_id, kind, releases, rho)
        VALUES (r.budget_id, p_request, p_kind, v_kept, v_used);
        UPDATE dp_budget d SET rho_spent = d.rho_spent - v_back WHERE d.id = r.budget_id
        RETURNING d.rho_spent, d.delta INTO rho_spent, delta;
        status := 'settled';
        reserved := r.releases;
        RETURN;
    END IF;
    status := 'closed';
    IF p_kind <> 'settle' OR NOT p_reported
       OR EXISTS (SELECT 1 FROM dp_budget_event e
                  WHERE e.request_id = p_request AND e.kind = 'settle') THEN
        RETURN;
    END IF;
    SELECT bd.budget_id, bd.releases, bd.rho, rs.releases AS reserved_releases,
           rs.rho AS reserved_rho INTO b
    FROM dp_budget_event bd
    JOIN dp_budget_event rs ON rs.request_id = bd.request_id AND rs.kind = 'reserve'
    WHERE bd.request_id = p_request AND bd.kind = 'bound';
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_kept := least(greatest(p_releases, 0), b.releases);
    v_used := least(reservation_share(b.reserved_rho, v_kept, b.reserved_releases), b.rho);
    INSERT INTO dp_budget_event (budget_id, request_id, kind, releases, rho)
    VALUES (b.budget_id, p_request, 'settle', v_kept, v_used);
    UPDATE dp_budget d SET rho_spent = d.rho_spent - (b.rho - v_used) WHERE d.id = b.budget_id
    RETURNING d.rho_spent, d.delta INTO rho_spent, delta;
    status := 'lowered';
    reserved := b.reserved_releases;
END $$;
