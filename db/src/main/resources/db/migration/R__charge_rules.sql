-- Repeatable (ADR 0038, ADR 0039): the one current copy of the charge ledger's rules. Flyway
-- re-applies this file after the versioned migrations whenever its text changes; change them here,
-- never in a new versioned migration.

-- The money of one metered request, in integer micro-units of its currency (the one copy of the
-- rule): amount = round_half_up((prompt · prompt_price + completion · completion_price) / 1000),
-- prices being micro-units per 1,000 tokens; creator = floor(amount · (10000 − take) / 10000),
-- take in basis points; platform = amount − creator. So creator + platform = amount exactly, the
-- platform keeps the sub-micro remainder of the split, and period totals are sums of these
-- integers. Raises 22023 (invalid_parameter_value) for a negative count, a price ≤ 0, a take
-- outside [0, 10000], or an amount or split beyond 2^63 − 1 micro-units.
CREATE OR REPLACE FUNCTION charge_amounts(
    p_prompt bigint, p_completion bigint, p_prompt_price bigint, p_completion_price bigint,
    p_take integer,
    OUT amount_micros bigint, OUT creator_micros bigint, OUT platform_micros bigint)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    thousandths numeric;
    amount numeric;
BEGIN
    IF p_prompt < 0 OR p_completion < 0 THEN
        RAISE EXCEPTION 'token counts must be >= 0' USING ERRCODE = '22023';
    END IF;
    IF p_prompt_price <= 0 OR p_completion_price <= 0 THEN
        RAISE EXCEPTION 'prices must be > 0' USING ERRCODE = '22023';
    END IF;
    IF p_take < 0 OR p_take > 10000 THEN
        RAISE EXCEPTION 'take must be in [0, 10000] basis points, was %', p_take
            USING ERRCODE = '22023';
    END IF;
    thousandths := p_prompt::numeric * p_prompt_price + p_completion::numeric * p_completion_price;
    amount := div(thousandths + 500, 1000);
    IF thousandths + 500 > 9223372036854775807 OR amount * (10000 - p_take) > 9223372036854775807
    THEN
        RAISE EXCEPTION 'the charge exceeds 2^63 micro-units' USING ERRCODE = '22023';
    END IF;
    amount_micros := amount;
    creator_micros := div(amount * (10000 - p_take), 10000);
    platform_micros := amount_micros - creator_micros;
END $$;

-- Records the charge of request p_request once, in one call: priced at version
-- p_adapter_ref@p_version's price in force at p_started (for a private session, its
-- gateway_request.mode, one price for both: its private price, else the larger hosted one, ADR
-- 0024), split by the adapter's take (else p_default_take) with charge_amounts. A request id
-- already billed keeps its first row (whatever its usage) and nothing is written. Returns status
-- 'inserted' or 'existing' with the stored row (adapter ref and version as stored, and the
-- organisation it was billed to), or 'no_version' / 'no_price' with nulls.
CREATE OR REPLACE FUNCTION record_charge(
    p_id uuid, p_request text, p_client uuid, p_key uuid, p_adapter_ref text, p_version text,
    p_prompt bigint, p_completion bigint, p_started timestamptz, p_reason text,
    p_default_take integer)
RETURNS TABLE (
    status text, request_id text, adapter_ref text, version text, currency text,
    prompt_tokens bigint, completion_tokens bigint, prompt_micros_per_1k_tokens bigint,
    completion_micros_per_1k_tokens bigint, take_basis_points integer, amount_micros bigint,
    creator_micros bigint, platform_micros bigint, started_at timestamptz,
    client_organisation_id uuid)
LANGUAGE plpgsql AS $$
DECLARE
    v_version uuid;
    v_take integer;
    v_price record;
    v_amounts record;
    v_status text := 'existing';
BEGIN
    IF NOT EXISTS (SELECT 1 FROM charge c WHERE c.request_id = p_request) THEN
        SELECT v.id, coalesce(a.platform_take_basis_points, p_default_take)
        INTO v_version, v_take
        FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
        WHERE a.adapter_ref = p_adapter_ref AND v.version = p_version;
        IF v_version IS NULL THEN
            RETURN QUERY SELECT 'no_version', NULL::text, NULL::text, NULL::text, NULL::text,
                NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::integer,
                NULL::bigint, NULL::bigint, NULL::bigint, NULL::timestamptz, NULL::uuid;
            RETURN;
        END IF;
        SELECT p.id, p.currency,
               CASE WHEN g.mode = 'private' THEN coalesce(p.private_micros_per_1k_tokens,
                   greatest(p.prompt_micros_per_1k_tokens, p.completion_micros_per_1k_tokens))
                   ELSE p.prompt_micros_per_1k_tokens END AS prompt_price,
               CASE WHEN g.mode = 'private' THEN coalesce(p.private_micros_per_1k_tokens,
                   greatest(p.prompt_micros_per_1k_tokens, p.completion_micros_per_1k_tokens))
                   ELSE p.completion_micros_per_1k_tokens END AS completion_price
        INTO v_price
        FROM adapter_price p
        -- By the uuid, so the primary key finds it (a cast of the column would scan the table).
        LEFT JOIN gateway_request g ON g.request_id = CASE
            WHEN p_request ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
            THEN p_request::uuid END
        WHERE p.adapter_version_id = v_version AND p.effective_from <= p_started
        ORDER BY p.effective_from DESC LIMIT 1;
        IF NOT FOUND THEN
            RETURN QUERY SELECT 'no_price', NULL::text, NULL::text, NULL::text, NULL::text,
                NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::integer,
                NULL::bigint, NULL::bigint, NULL::bigint, NULL::timestamptz, NULL::uuid;
            RETURN;
        END IF;
        SELECT * INTO v_amounts FROM charge_amounts(
            p_prompt, p_completion, v_price.prompt_price, v_price.completion_price, v_take);
        INSERT INTO charge (id, request_id, client_organisation_id, api_key_id,
            adapter_version_id, adapter_price_id, currency, prompt_tokens, completion_tokens,
            prompt_micros_per_1k_tokens, completion_micros_per_1k_tokens, take_basis_points,
            amount_micros, creator_micros, platform_micros, route_reason, started_at)
        VALUES (p_id, p_request, p_client, p_key, v_version, v_price.id, v_price.currency,
            p_prompt, p_completion, v_price.prompt_price, v_price.completion_price, v_take,
            v_amounts.amount_micros, v_amounts.creator_micros, v_amounts.platform_micros,
            p_reason, p_started)
        ON CONFLICT ON CONSTRAINT charge_request_id_key DO NOTHING;
        IF FOUND THEN
            v_status := 'inserted';
        END IF;
    END IF;
    RETURN QUERY SELECT v_status, w.* FROM charge_row(p_request) w;
END $$;

-- The charge of request p_request as stored (no row when it was not billed): its adapter ref and
-- version, and the organisation it was billed to.
CREATE OR REPLACE FUNCTION charge_row(p_request text)
RETURNS TABLE (
    request_id text, adapter_ref text, version text, currency text, prompt_tokens bigint,
    completion_tokens bigint, prompt_micros_per_1k_tokens bigint,
    completion_micros_per_1k_tokens bigint, take_basis_points integer, amount_micros bigint,
    creator_micros bigint, platform_micros bigint, started_at timestamptz,
    client_organisation_id uuid)
LANGUAGE sql STABLE AS $$
    SELECT c.request_id, a.adapter_ref, v.version, c.currency::text, c.prompt_tokens,
           c.completion_tokens, c.prompt_micros_per_1k_tokens, c.completion_micros_per_1k_tokens,
           c.take_basis_points, c.amount_micros, c.creator_micros, c.platform_micros,
           c.started_at, c.client_organisation_id
    FROM charge c
    JOIN adapter_version v ON v.id = c.adapter_version_id
    JOIN adapter a ON a.id = v.adapter_id
    WHERE c.request_id = p_request
$$;
