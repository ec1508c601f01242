-- Repeatable (ADR 0038, ADR 0040): the one current copy of a metered request's end. Flyway
-- re-applies this file after the versioned migrations whenever its text changes; change the rule
-- here, never in a new versioned migration.

-- Ends request p_request, both modes, in one call (ADR 0026, ADR 0040): records its outcome and
-- counts once (p_read ≥ p_completion: the completion tokens read from the node, which its DP bound
-- counts; p_node_claim the node's own count, -1 for none), bills p_prompt + p_completion tokens
-- with record_charge when either is > 0 (p_charge is the new row's id), settles its DP reservation
-- to p_releases with close_reservation ('settle', as reported) unless p_releases is null (left open
-- for the node's report or the sweep), and gives back the limit leases p_leases (its node's and its
-- key's slot; null or empty when they are counted in memory). The order of the locks is the one
-- every writer of these rows takes: the request's row, the charge, the request's advisory lock and
-- its budget's row, then the leases.
--
-- A request that had ended already is not ended, billed or settled again: ended is false and the
-- row carries its charge if it was billed; its leases are given back all the same. charge_status is
-- record_charge's ('inserted' or 'existing'), or null when nothing was billed. budget_status,
-- reserved, rho_spent and delta are close_reservation's, or null when nothing was settled. Raises
-- P0002 when the version does not exist and 22023 when it had no price when the request started
-- or a count is out of range; nothing is changed then.
CREATE OR REPLACE FUNCTION end_request(
    p_request uuid, p_outcome text, p_prompt integer, p_completion integer, p_read integer,
    p_node_claim integer, p_releases bigint, p_leases uuid[], p_charge uuid, p_client uuid,
    p_key uuid, p_adapter_ref text, p_version text, p_started timestamptz, p_reason text,
    p_default_take integer)
RETURNS TABLE (
    ended boolean, charge_status text, request_id text, adapter_ref text, version text,
    currency text, prompt_tokens bigint, completion_tokens bigint,
    prompt_micros_per_1k_tokens bigint, completion_micros_per_1k_tokens bigint,
    take_basis_points integer, amount_micros bigint, creator_micros bigint,
    platform_micros bigint, started_at timestamptz, budget_status text, reserved bigint,
    rho_spent numeric, delta numeric)
LANGUAGE plpgsql AS $$
DECLARE
    v_ended boolean;
    c record;
    v_budget text;
    v_reserved bigint;
    v_rho_spent numeric;
    v_delta numeric;
BEGIN
    IF p_prompt < 0 OR p_completion < 0 OR p_read < p_completion OR p_node_claim < -1 THEN
        RAISE EXCEPTION 'counts out of range: prompt %, completion %, read %, node claim %',
            p_prompt, p_completion, p_read, p_node_claim USING ERRCODE = '22023';
    END IF;
    UPDATE gateway_request g
    SET ended_at = now(), outcome = p_outcome, delivered_prompt_tokens = p_prompt,
        delivered_completion_tokens = p_completion, relayed_completion_tokens = p_read,
        node_completion_tokens = NULLIF(p_node_claim, -1)
    WHERE g.request_id = p_request AND g.ended_at IS NULL;
    v_ended := FOUND;
    IF v_ended AND (p_prompt > 0 OR p_completion > 0) THEN
        SELECT * INTO c FROM record_charge(p_charge, p_request::text, p_client, p_key,
            p_adapter_ref, p_version, p_prompt, p_completion, p_started, p_reason,
            p_default_take);
        IF c.status = 'no_version' THEN
            RAISE EXCEPTION 'adapter version %@% does not exist', p_adapter_ref, p_version
                USING ERRCODE = 'P0002';
        ELSIF c.status = 'no_price' THEN
            RAISE EXCEPTION 'the request started before %@% had a price', p_adapter_ref, p_version
                USING ERRCODE = '22023';
        END IF;
    ELSE
        SELECT 'existing' AS status, w.* INTO c FROM charge_row(p_request::text) w;
    END IF;
    IF v_ended AND p_releases IS NOT NULL THEN
        SELECT x.status, x.reserved, x.rho_spent, x.delta
        INTO v_budget, v_reserved, v_rho_spent, v_delta
        FROM close_reservation(p_request::text, 'settle', p_releases, true) x;
    END IF;
    IF p_leases IS NOT NULL AND cardinality(p_leases) > 0 THEN
        DELETE FROM limit_lease l WHERE l.id = ANY (p_leases);
    END IF;
    RETURN QUERY SELECT v_ended, c.status, c.request_id, c.adapter_ref, c.version, c.currency,
        c.prompt_tokens, c.completion_tokens, c.prompt_micros_per_1k_tokens,
        c.completion_micros_per_1k_tokens, c.take_basis_points, c.amount_micros,
        c.creator_micros, c.platform_micros, c.started_at, v_budget, v_reserved, v_rho_spent,
        v_delta;
END $$;
