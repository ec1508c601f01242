-- Issue 34 (ADR 0026), first: which marketplace replica relays each hosted request. A replica that
-- starts again under the same name (tensafe.gateway.replica, else host:port) relays none of the requests
-- it had open before: at start it marks them as no longer vouched for, so a node's report or the
-- sweep ends them as gateway_lost at once, instead of after the report deadline.
ALTER TABLE gateway_request ADD COLUMN replica text;
CREATE INDEX gateway_request_open_by_replica ON gateway_request (replica)
    WHERE ended_at IS NULL AND mode = 'hosted';

-- The admission in one call (issue 34, ADR 0026): the request's node slots, its lock, its
-- gateway_request row, its DP reservation (event and balance) and, on a budget's first request of
-- a period, the budget row. It replaces the node query, one take_limit_lease per node, the
-- request's INSERT and the reservation (and, on a missing budget row: the look for a replayed
-- event, the row's creation and the reservation again; on a refusal: the budget row and the ρ in
-- flight) with one round trip. The arithmetic stays in Java: the cost of the releases
-- (BudgetMaths.cost), the period's bounds and a new budget's ρ limit (BudgetMaths.rhoLimit) are
-- passed in, so the figures are the ones PrivacyBudgets.reserve writes.
--
-- Nodes: with p_fleet set (limits counted in the database, the shared scope) the function chooses
-- them as NodeDispatcher.candidates does: fresh, not suspended, reachable, with an endpoint, of the
-- fleet and serving p_model; those below their concurrency get a slot (take_limit_lease, in
-- ascending node id, the lock order every transaction follows); the request is recorded on the
-- best (adapter loaded first, then least loaded). With p_fleet null (slots counted in memory, the
-- instance scope) the caller chose them and p_node is recorded.
--
-- Returns one row: outcome 'reserved' (the budget after the balance update), 'replayed' (this
-- request id had reserved already: its releases and the budget now), 'refused' (the cost does not
-- fit: the budget as it stands and the ρ held by the other open reservations, for BudgetRefusal)
-- or 'no_capacity' (no node slot: nothing recorded, nothing reserved); nodes: the slots taken, best
-- first, as a JSON array. A refusal leaves the slots, the request row and the event written: the
-- caller raises its problem and the transaction rolls back, as it did when they were separate
-- statements.
CREATE FUNCTION admit_request(
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
    chosen text;
BEGIN
    IF p_fleet IS NOT NULL THEN
        FOR n IN
            SELECT x.id, x.name, x.endpoint, x.dispatch_token, x.max_concurrency,
                   p_ref = ANY (x.loaded_adapters) AS loaded,
                   (SELECT count(*)::int FROM limit_lease l
                    WHERE l.subject = x.id AND l.expires_at > now()) AS leased,
                   row_number() OVER () AS pos
            FROM node x
            WHERE x.fleet_id = p_fleet AND x.suspended_at IS NULL AND x.endpoint IS NOT NULL
              AND x.unreachable_since IS NULL
              AND x.last_heartbeat_at > p_fresh AND p_model = ANY (x.base_models)
            ORDER BY x.id
        LOOP
            CONTINUE WHEN n.leased >= n.max_concurrency;
            lease := gen_random_uuid();
            IF take_limit_lease(lease, 'node', n.id, p_holder, p_ttl_seconds, n.max_concurrency) THEN
                taken := taken || jsonb_build_object('id', n.id, 'name', n.name,
                    'endpoint', n.endpoint, 'dispatchToken', n.dispatch_token,
                    'hasAdapter', n.loaded, 'slot', lease,
                    'load', n.leased::double precision / n.max_concurrency, 'pos', n.pos);
            END IF;
        END LOOP;
        IF jsonb_array_length(taken) = 0 THEN
            RETURN QUERY SELECT 'no_capacity'::text, p_releases, NULL::uuid, NULL::numeric,
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
