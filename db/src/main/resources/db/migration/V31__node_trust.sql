-- Issue 35, nodes (ADR 0029): trust boundaries, round two.
--
-- 1. Suspension is checked in one place. A node is usable only while neither it, nor any node of
--    its credential (a suspension binds the credential: ADR 0012), nor the organisation that
--    operates its credential is suspended: node_credential_usable is that rule, usable_node the
--    nodes it leaves, and the dispatch query (admit_request below, NodeDispatcher.candidates), the
--    fleet health check and every node call (register, heartbeat, usage report, package download)
--    read them. Organisations can now be suspended; a suspended organisation's API keys are
--    refused too (api_key_usable below).
-- 2. Declared capacity does not win traffic. A node is given at most usable_node.slots requests at
--    once: least(max_concurrency, 4 + completed / 8) by default (node_slot_rule), completed being
--    the requests the marketplace itself saw the node complete (gateway_request.outcome
--    'completed') in the last ten minutes, counted per minute in node_served. And its declaration that it holds an adapter counts
--    (node_holds_adapter) only if its credential downloaded that version's whole package
--    (node_download).

ALTER TABLE organisation ADD COLUMN suspended_at timestamptz;

-- A node credential (the token subject every node call carries) and the organisation that
-- operates it, as the identity provider names it (claim tensafe_organisation) at registration;
-- null when it names none.
CREATE TABLE node_credential (
    client_id       text        PRIMARY KEY CHECK (char_length(client_id) BETWEEN 1 AND 255),
    organisation_id uuid        REFERENCES organisation (id),
    registered_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX node_credential_organisation ON node_credential (organisation_id);
INSERT INTO node_credential (client_id, registered_at)
SELECT client_id, min(registered_at) FROM node GROUP BY client_id;

-- Whether credential p_client may act as a node: none of its nodes is suspended and its
-- organisation, if it has one, is not. The one place that rule is written.
CREATE FUNCTION node_credential_usable(p_client text) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT NOT EXISTS (SELECT 1 FROM node s
                       WHERE s.client_id = p_client AND s.suspended_at IS NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM node_credential c JOIN organisation o
                       ON o.id = c.organisation_id
                       WHERE c.client_id = p_client AND o.suspended_at IS NOT NULL)
$$;

-- How a node earns slots (ADR 0029), one row, written by each marketplace replica at start from
-- tensafe.nodes.* (fleet.NodeSlotRule): a node is given at most least(declared, unproven_slots +
-- completed / completed_per_slot) requests at once, completed being the requests the gateway saw
-- it complete in the last window_seconds.
CREATE TABLE node_slot_rule (
    only_row           boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    unproven_slots     integer NOT NULL CHECK (unproven_slots BETWEEN 1 AND 4096),
    completed_per_slot integer NOT NULL CHECK (completed_per_slot >= 1),
    window_seconds     integer NOT NULL CHECK (window_seconds BETWEEN 60 AND 86400)
);
INSERT INTO node_slot_rule VALUES (true, 4, 8, 600);

-- Requests the gateway saw each node complete, per minute; rows older than the rule's window are
-- removed as the node completes more.
CREATE TABLE node_served (
    node_id   uuid        NOT NULL REFERENCES node (id),
    minute    timestamptz NOT NULL,
    completed integer     NOT NULL CHECK (completed > 0),
    PRIMARY KEY (node_id, minute)
);

CREATE FUNCTION count_node_served() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO node_served AS s (node_id, minute, completed)
    VALUES (NEW.node_id, date_trunc('minute', now()), 1)
    ON CONFLICT (node_id, minute) DO UPDATE SET completed = s.completed + 1;
    DELETE FROM node_served s
    WHERE s.node_id = NEW.node_id
      AND s.minute < now() - make_interval(secs => (SELECT r.window_seconds + 60
                                                    FROM node_slot_rule r));
    RETURN NULL;
END $$;

CREATE TRIGGER gateway_request_served AFTER UPDATE OF outcome ON gateway_request
    FOR EACH ROW
    WHEN (OLD.outcome IS NULL AND NEW.outcome = 'completed' AND NEW.node_id IS NOT NULL)
    EXECUTE FUNCTION count_node_served();

-- The most requests node p_node (declaring p_declared) is given at once, by node_slot_rule.
CREATE FUNCTION node_slots(p_node uuid, p_declared integer) RETURNS integer
LANGUAGE sql STABLE AS $$
    SELECT least(p_declared::bigint, r.unproven_slots + coalesce(
        (SELECT sum(s.completed) FROM node_served s
         WHERE s.node_id = p_node AND s.minute > now() - make_interval(secs => r.window_seconds)),
        0) / r.completed_per_slot)::integer
    FROM node_slot_rule r
$$;

-- The nodes that may be dispatched to or heard from, with their slot ceiling. Health (heartbeat,
-- endpoint, reachability) is the reader's to check.
CREATE VIEW usable_node AS
    SELECT n.*, node_slots(n.id, n.max_concurrency) AS slots
    FROM node n
    WHERE n.suspended_at IS NULL AND node_credential_usable(n.client_id);

-- Packages a node credential downloaded whole (a 200, or a range from the first byte to the last),
-- first time only.
CREATE TABLE node_download (
    client_id          text        NOT NULL CHECK (char_length(client_id) BETWEEN 1 AND 255),
    adapter_version_id uuid        NOT NULL REFERENCES adapter_version (id),
    downloaded_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (client_id, adapter_version_id)
);

-- Whether a node of credential p_client declaring p_loaded holds p_ref@p_version: it declares the
-- adapter and its credential downloaded that version's package.
CREATE FUNCTION node_holds_adapter(p_client text, p_loaded text[], p_ref text, p_version text)
RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT p_ref = ANY (p_loaded) AND EXISTS (
        SELECT 1 FROM node_download d JOIN adapter_version v ON v.id = d.adapter_version_id
        JOIN adapter a ON a.id = v.adapter_id
        WHERE d.client_id = p_client AND a.adapter_ref = p_ref AND v.version = p_version)
$$;

-- V29's rule, and the key's organisation not suspended.
CREATE OR REPLACE FUNCTION api_key_usable(p_key uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT k.revoked_at IS NULL AND k.suspended_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM app_user u
                           WHERE u.id = k.created_by AND u.suspended_at IS NOT NULL)
           AND EXISTS (SELECT 1 FROM organisation_member m
                       JOIN app_user u ON u.id = m.user_id
                       WHERE m.organisation_id = k.organisation_id AND u.suspended_at IS NULL)
           AND NOT EXISTS (SELECT 1 FROM organisation o
                           WHERE o.id = k.organisation_id AND o.suspended_at IS NOT NULL)
    FROM api_key k WHERE k.id = p_key
$$;

-- V28's admit_request, its nodes read from usable_node: each given at most its slots, and holding
-- the adapter only as node_holds_adapter says. Everything else as V28 wrote it.
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
    chosen text;
BEGIN
    IF p_fleet IS NOT NULL THEN
        FOR n IN
            SELECT x.id, x.name, x.endpoint, x.dispatch_token, x.slots,
                   node_holds_adapter(x.client_id, x.loaded_adapters, p_ref, p_version) AS loaded,
                   (SELECT count(*)::int FROM limit_lease l
                    WHERE l.subject = x.id AND l.expires_at > now()) AS leased,
                   row_number() OVER () AS pos
            FROM usable_node x
            WHERE x.fleet_id = p_fleet AND x.endpoint IS NOT NULL
              AND x.unreachable_since IS NULL
              AND x.last_heartbeat_at > p_fresh AND p_model = ANY (x.base_models)
            ORDER BY x.id
        LOOP
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
