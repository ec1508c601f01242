-- Repeatable (ADR 0038): the one current copy of the admission's functions. Flyway re-applies
-- this file after the versioned migrations whenever its text changes; change them here, never in a
-- versioned migration (the versioned files that first created them, V28 and V29, are history).

-- The admission's node slots, record and reservation in one call (issue 34, ADR 0026). The
-- arithmetic stays in Java: the cost of the releases (BudgetMaths.cost), the period's bounds and a
-- new budget's rho limit (BudgetMaths.rhoLimit) are passed in, so the figures are the ones
-- PrivacyBudgets.reserve writes.
--
-- Nodes: with p_fleet set (limits counted in the database, the shared scope) the function chooses
-- them as NodeDispatcher.candidates does, from dispatchable_node (R__node_choice.sql): fresh, of
-- the fleet and serving p_model; those below their slot ceiling get a slot (take_limit_lease, in
-- ascending node id, the lock order every transaction follows); the request is recorded on the
-- best (adapter loaded first, then least loaded). With p_fleet null (slots counted in memory, the
-- instance scope) the caller chose them and p_node is recorded.
--
-- Returns one row: outcome 'reserved' (the budget after the balance update), 'replayed' (this
-- request id had reserved already: its releases and the budget now), 'refused' (the cost does not
-- fit: the budget as it stands and the rho held by the other open reservations, for BudgetRefusal)
-- 'no_capacity' (every dispatchable node at its ceiling) or 'no_node' (none dispatchable):
-- nothing recorded, nothing reserved; nodes: the slots taken, best
-- first, as a JSON array. A refusal leaves the slots, the request row and the event written: the
-- caller (admit below) undoes them.
CREATE OR REPLACE FUNCTION admit_request(
    p_request text, p_org uuid, p_key uuid, p_ref text, p_version text, p_reason text,
    p_started timestamptz, p_node uuid, p_max_prompt bigint, p_max_completion integer,
    p_prompt integer, p_mode text,
    p_adapter uuid, p_period_start timestamptz, p_period_end timestamptz, p_delta numeric,
    p_rho_limit numeric, p_releases bigint, p_cost numeric,
    p_fleet uuid, p_model text, p_fresh timestamptz, p_holder uuid, p_ttl_seconds double precision,
    p_replica text)
RETURNS TABLE (outcome text, releases bigint, budget_id uuid, rho_limit numeric,
               rho_top_up numeric, rho_spent numeric, delta numeric, period_end timestamptz,
               in_flight numeric, nodes text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    written integer;
    b dp_budget%ROWTYPE;
    replayed bigint;
    n record;
    lease uuid;
    taken jsonb := '[]'::jsonb;
    seen integer := 0;
    chosen text;
BEGIN
    IF p_fleet IS NOT NULL THEN
        FOR n IN
            SELECT x.id, x.name, x.endpoint, x.dispatch_token, x.slots,
                   node_holds_adapter(x.client_id, x.loaded_adapters, p_ref, p_version) AS loaded,
                   (SELECT count(*)::int FROM limit_lease l
                    WHERE l.subject = x.id AND l.expires_at > now()) AS leased,
                   row_number() OVER () AS pos
            FROM dispatchable_node x
            WHERE x.fleet_id = p_fleet
              AND x.last_heartbeat_at > p_fresh AND p_model = ANY (x.base_models)
            ORDER BY x.id
        LOOP
            seen := seen + 1;
            CONTINUE WHEN n.leased >= n.slots;
            lease := gen_random_uuid();
            IF take_limit_lease(lease, 'node', n.id, p_holder, p_ttl_seconds, n.slots) THEN
                taken := taken || jsonb_build_object('id', n.id, 'name', n.name,
                    'endpoint', n.endpoint, 'dispatchToken', n.dispatch_token,
                    'hasAdapter', n.loaded, 'slot', lease,
                    'load', n.leased::double precision / n.slots, 'pos', n.pos);
            END IF;
        END LOOP;
        IF jsonb_array_length(taken) = 0 THEN
            -- 'no_node': none is dispatchable at all (the caller refuses at once); 'no_capacity':
            -- every one is at its ceiling (the caller may wait for a slot).
            RETURN QUERY SELECT CASE WHEN seen = 0 THEN 'no_node' ELSE 'no_capacity' END, p_releases, NULL::uuid, NULL::numeric,
                NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
                '[]'::text;
            RETURN;
        END IF;
        -- Best first; ties in the order the nodes were read, as the Java sort, which is stable,
        -- kept them.
        SELECT jsonb_agg(t ORDER BY (t->>'hasAdapter')::boolean DESC,
                         (t->>'load')::double precision, (t->>'pos')::bigint)
        INTO taken FROM jsonb_array_elements(taken) t;
        p_node := (taken->0->>'id')::uuid;
    END IF;
    chosen := taken::text;
    -- PrivacyBudgets.REQUEST_LOCK: a node's report that overtakes this commit waits for it.
    PERFORM pg_advisory_xact_lock(hashtextextended(p_request, 7));
    INSERT INTO gateway_request (request_id, client_organisation_id, api_key_id, adapter_ref,
        adapter_version, route_reason, started_at, node_id, max_prompt_tokens,
        max_completion_tokens, prompt_tokens, mode, active_at, replica)
    VALUES (p_request::uuid, p_org, p_key, p_ref, p_version, p_reason, p_started, p_node,
        p_max_prompt, p_max_completion, NULLIF(p_prompt, -1), p_mode,
        CASE WHEN p_mode = 'private' THEN p_started END, p_replica);

    FOR attempt IN 1..2 LOOP
        WITH event AS (
          INSERT INTO dp_budget_event AS ev (budget_id, request_id, kind, releases, rho)
          SELECT d.id, p_request, 'reserve', p_releases, p_cost FROM dp_budget d
          WHERE d.client_organisation_id = p_org AND d.adapter_id = p_adapter
            AND d.period_start = p_period_start
          ON CONFLICT (request_id, kind) DO NOTHING
          RETURNING ev.budget_id),
        balance AS (
          UPDATE dp_budget d SET rho_spent = d.rho_spent + p_cost FROM event e
          WHERE d.id = e.budget_id AND d.rho_spent + p_cost <= d.rho_limit + d.rho_top_up
          RETURNING d.id, d.rho_limit, d.rho_top_up, d.rho_spent, d.delta, d.period_end)
        SELECT (SELECT count(*) FROM event)::int, balance.id, balance.rho_limit,
               balance.rho_top_up, balance.rho_spent, balance.delta, balance.period_end
        INTO written, b.id, b.rho_limit, b.rho_top_up, b.rho_spent, b.delta, b.period_end
        FROM (VALUES (1)) one LEFT JOIN balance ON true;
        EXIT WHEN written > 0 OR attempt = 2;
        -- No event: this request id reserved already (a replay answers the same), or this
        -- period's budget row does not exist yet (create it and reserve again).
        SELECT e.releases INTO replayed FROM dp_budget_event e
        WHERE e.request_id = p_request AND e.kind = 'reserve';
        IF FOUND THEN
            SELECT * INTO b FROM dp_budget d
            WHERE d.client_organisation_id = p_org AND d.adapter_id = p_adapter
              AND d.period_start = p_period_start;
            RETURN QUERY SELECT 'replayed'::text, replayed, b.id, b.rho_limit, b.rho_top_up,
                b.rho_spent, b.delta, b.period_end, NULL::numeric, chosen;
            RETURN;
        END IF;
        INSERT INTO dp_budget (id, client_organisation_id, adapter_id, period_start, period_end,
                               delta, rho_limit)
        VALUES (gen_random_uuid(), p_org, p_adapter, p_period_start, p_period_end, p_delta,
                p_rho_limit)
        ON CONFLICT (client_organisation_id, adapter_id, period_start) DO NOTHING;
    END LOOP;

    IF b.id IS NOT NULL THEN
        RETURN QUERY SELECT 'reserved'::text, p_releases, b.id, b.rho_limit, b.rho_top_up,
            b.rho_spent, b.delta, b.period_end, NULL::numeric, chosen;
        RETURN;
    END IF;
    SELECT * INTO b FROM dp_budget d
    WHERE d.client_organisation_id = p_org AND d.adapter_id = p_adapter
      AND d.period_start = p_period_start;
    RETURN QUERY SELECT 'refused'::text, p_releases, b.id, b.rho_limit, b.rho_top_up, b.rho_spent,
        b.delta, b.period_end,
        (SELECT coalesce(sum(r.rho), 0) FROM dp_budget_event r
         WHERE r.budget_id = b.id AND r.kind = 'reserve' AND r.request_id <> p_request
           AND NOT EXISTS (SELECT 1 FROM dp_budget_event x
                           WHERE x.request_id = r.request_id
                             AND x.kind IN ('settle', 'refund', 'bound'))),
        chosen;
END $$;

-- The admission, in this order:
--   1. 'key_unusable' when p_key is not usable (the gateway answers 401);
--   2. 'version_changed' when p_version is set and no longer served as routed
--      (version_still_served: the gateway reads the catalogue again and routes the request again);
--      'catalogue_changed' when p_catalogue is set and is not the revision now (set for a request
--      routed by the step-gate, which chose among the whole catalogue);
--   3. with p_key_lease set (limits counted in the database): one request from the key's bucket
--      and then from its organisation's (unless p_per_minute is null: drawn by an earlier call for
--      this request), 'rate_limited' or 'organisation_rate_limited' with retry_after when one is
--      empty; then the key's slot within its organisation's in-flight limit (take_key_lease),
--      'key_busy' or 'organisation_busy' when none is free. Tokens drawn stay spent whatever
--      follows;
--   4. admit_request: node slots, the request's record, its reservation.
-- Steps 3 (the slot) and 4 run in a block of their own: on a busy answer, 'no_capacity' or a
-- budget's 'refused' the block's writes are undone (slots, record, event) while the bucket's token
-- stays. retry_after is 0 unless rate limited; revision is catalogue_revision now.
CREATE OR REPLACE FUNCTION admit(
    p_confirm_key boolean, p_version_id uuid, p_newest boolean, p_price bigint,
    p_catalogue bigint, p_key_lease uuid, p_per_minute double precision,
    p_key_max integer,
    p_request text, p_org uuid, p_key uuid, p_ref text, p_version text, p_reason text,
    p_started timestamptz, p_node uuid, p_max_prompt bigint, p_max_completion integer,
    p_prompt integer, p_mode text,
    p_adapter uuid, p_period_start timestamptz, p_period_end timestamptz, p_delta numeric,
    p_rho_limit numeric, p_releases bigint, p_cost numeric,
    p_fleet uuid, p_model text, p_fresh timestamptz, p_holder uuid, p_ttl_seconds double precision,
    p_replica text)
RETURNS TABLE (outcome text, releases bigint, budget_id uuid, rho_limit numeric,
               rho_top_up numeric, rho_spent numeric, delta numeric, period_end timestamptz,
               in_flight numeric, nodes text, retry_after integer, revision bigint)
LANGUAGE plpgsql AS $$
DECLARE
    wait integer := 0;
    busy text;
    a record;
    now_revision bigint := (SELECT c.revision FROM catalogue_revision c);
BEGIN
    IF p_confirm_key AND NOT coalesce(api_key_usable(p_key), false) THEN
        RETURN QUERY SELECT 'key_unusable'::text, p_releases, NULL::uuid, NULL::numeric,
            NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
            '[]'::text, 0, now_revision;
        RETURN;
    END IF;
    IF p_version_id IS NOT NULL
       AND NOT version_still_served(p_version_id, p_newest, p_price, p_started) THEN
        RETURN QUERY SELECT 'version_changed'::text, p_releases, NULL::uuid, NULL::numeric,
            NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
            '[]'::text, 0, now_revision;
        RETURN;
    END IF;
    IF p_catalogue IS NOT NULL AND p_catalogue <> now_revision THEN
        RETURN QUERY SELECT 'catalogue_changed'::text, p_releases, NULL::uuid, NULL::numeric,
            NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
            '[]'::text, 0, now_revision;
        RETURN;
    END IF;
    -- p_per_minute null: this request drew its rate in an earlier call, committed (a retry while
    -- it waits for a node slot, ADR 0038).
    IF p_key_lease IS NOT NULL AND p_per_minute IS NOT NULL THEN
        wait := take_key_request(p_key, p_per_minute);
        IF wait > 0 THEN
            RETURN QUERY SELECT 'rate_limited'::text, p_releases, NULL::uuid, NULL::numeric,
                NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
                '[]'::text, wait, now_revision;
            RETURN;
        END IF;
        wait := take_key_request(p_org, (SELECT r.requests_per_minute::double precision
                                         FROM organisation_limit_rule r));
        IF wait > 0 THEN
            RETURN QUERY SELECT 'organisation_rate_limited'::text, p_releases, NULL::uuid,
                NULL::numeric, NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz,
                NULL::numeric, '[]'::text, wait, now_revision;
            RETURN;
        END IF;
    END IF;
    BEGIN
        busy := CASE WHEN p_key_lease IS NOT NULL
                     THEN take_key_lease(p_key_lease, p_key, p_org, p_holder, p_ttl_seconds,
                                         p_key_max) END;
        IF busy IS NOT NULL THEN
            SELECT busy AS outcome, p_releases AS releases, NULL::uuid AS budget_id,
                   NULL::numeric AS rho_limit, NULL::numeric AS rho_top_up,
                   NULL::numeric AS rho_spent, NULL::numeric AS delta,
                   NULL::timestamptz AS period_end, NULL::numeric AS in_flight,
                   '[]'::text AS nodes
            INTO a;
        ELSE
            SELECT * INTO a FROM admit_request(p_request, p_org, p_key, p_ref, p_version,
                p_reason, p_started, p_node, p_max_prompt, p_max_completion, p_prompt, p_mode,
                p_adapter, p_period_start, p_period_end, p_delta, p_rho_limit, p_releases, p_cost,
                p_fleet, p_model, p_fresh, p_holder, p_ttl_seconds, p_replica) r;
            IF a.outcome IN ('refused', 'no_capacity', 'no_node') THEN
                RAISE EXCEPTION USING ERRCODE = 'TS001';
            END IF;
        END IF;
    EXCEPTION WHEN SQLSTATE 'TS001' THEN
        NULL; -- the block's writes are undone; a keeps the answer
    END;
    RETURN QUERY SELECT a.outcome, a.releases, a.budget_id, a.rho_limit, a.rho_top_up,
        a.rho_spent, a.delta, a.period_end, a.in_flight, a.nodes, 0, now_revision;
END $$;
