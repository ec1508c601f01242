-- The admission in one database call (issue 34, ADR 0026, second part). V28's admit_request folded
-- the node slots, the request's record and its reservation; the API-key check, the key's rate and
-- slot, and the version's resolution were still a round trip each before it. Now:
--   * the gateway resolves the version from its in-memory copy of the served catalogue and the key
--     from its in-memory copy of the keys it verified, and admit confirms both: the key is still
--     usable (api_key_usable, the one place that rule is written) and the version is still served
--     at the price the gateway routed it at (version_still_served);
--   * admit takes the key's rate and slot (take_key_request, take_limit_lease) itself.

-- Whether API key p_key may be used: neither it nor its creator is revoked or suspended, and at
-- least one member of its organisation is not suspended. Null when there is no such key.
CREATE FUNCTION api_key_usable(p_key uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT k.revoked_at IS NULL AND k.suspended_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM app_user u
                           WHERE u.id = k.created_by AND u.suspended_at IS NOT NULL)
           AND EXISTS (SELECT 1 FROM organisation_member m
                       JOIN app_user u ON u.id = m.user_id
                       WHERE m.organisation_id = k.organisation_id AND u.suspended_at IS NULL)
    FROM api_key k WHERE k.id = p_key
$$;

-- One row: advances with every row written to adapter, adapter_version, adapter_price or creator
-- (an update that changes nothing does not count), the tables ServedCatalogue copies. admit answers
-- it, and a replica whose copy is older reads the catalogue again in the background: a write to the
-- catalogue never refuses an admission, only a change to the version the request was routed to
-- does.
CREATE TABLE catalogue_revision (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    revision bigint NOT NULL
);
INSERT INTO catalogue_revision (only_row, revision) VALUES (true, 1);

CREATE FUNCTION bump_catalogue_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE catalogue_revision SET revision = revision + 1;
    RETURN NULL;
END $$;

CREATE TRIGGER adapter_catalogue AFTER INSERT OR DELETE ON adapter
    FOR EACH ROW EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_catalogue_update AFTER UPDATE ON adapter
    FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_catalogue_truncate AFTER TRUNCATE ON adapter
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_version_catalogue AFTER INSERT OR DELETE ON adapter_version
    FOR EACH ROW EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_version_catalogue_update AFTER UPDATE ON adapter_version
    FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_version_catalogue_truncate AFTER TRUNCATE ON adapter_version
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_price_catalogue AFTER INSERT OR DELETE ON adapter_price
    FOR EACH ROW EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_price_catalogue_update AFTER UPDATE ON adapter_price
    FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_price_catalogue_truncate AFTER TRUNCATE ON adapter_price
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER creator_catalogue AFTER INSERT OR DELETE ON creator
    FOR EACH ROW EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER creator_catalogue_update AFTER UPDATE ON creator
    FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER creator_catalogue_truncate AFTER TRUNCATE ON creator
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_revision();

-- Whether version p_version is still served as the gateway routed to it: published, its adapter
-- and creator not suspended, p_price the price row in force at p_at and, when p_newest (the model
-- was named without a version), no higher published version with a price in force at p_at. The
-- rule ServedVersions applies to its copy, written for the one version a request uses.
CREATE FUNCTION version_still_served(p_version uuid, p_newest boolean, p_price bigint,
                                     p_at timestamptz)
RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
        JOIN creator c ON c.id = a.creator_id
        WHERE v.id = p_version AND v.state = 'published' AND a.suspended_at IS NULL
          AND c.suspended_at IS NULL
          AND (SELECT p.id FROM adapter_price p WHERE p.adapter_version_id = v.id
               AND p.effective_from <= p_at ORDER BY p.effective_from DESC LIMIT 1) = p_price
          AND NOT (p_newest AND EXISTS (
              SELECT 1 FROM adapter_version n WHERE n.adapter_id = v.adapter_id
                AND n.state = 'published'
                AND (n.version_major, n.version_minor, n.version_patch)
                    > (v.version_major, v.version_minor, v.version_patch)
                AND EXISTS (SELECT 1 FROM adapter_price q WHERE q.adapter_version_id = n.id
                            AND q.effective_from <= p_at))))
$$;

-- The admission, in this order (the order the separate calls refused in):
--   1. 'key_unusable' when p_key is not usable (the gateway answers 401);
--   2. 'version_changed' when p_version is set and no longer served as routed
--      (version_still_served: the gateway reads the catalogue again and routes the request again);
--      'catalogue_changed' when p_catalogue is set and is not the revision now (set for a request
--      routed by the step-gate, which chose among the whole catalogue: the gateway reads it again,
--      at most once per 250 ms, and routes again once, then admits with p_catalogue null);
--   3. with p_key_lease set (limits counted in the database): one request from the key's bucket,
--      'rate_limited' with retry_after when it is empty; then the key's slot, 'key_busy' when
--      every one is held. The bucket's token stays spent whatever follows, as a refused request
--      still counts against the key's rate;
--   4. admit_request (V28): node slots, the request's record, its reservation.
-- Steps 3 (the slot) and 4 run in a block of their own: on 'key_busy', 'no_capacity' or a
-- budget's 'refused' the block's writes are undone (slots, record, event) while the bucket's token
-- stays, so the caller commits and then answers the refusal. retry_after is 0 unless
-- 'rate_limited'; revision is catalogue_revision now, for the caller to know its copy is old.
CREATE FUNCTION admit(
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
    IF p_key_lease IS NOT NULL THEN
        wait := take_key_request(p_key, p_per_minute);
        IF wait > 0 THEN
            RETURN QUERY SELECT 'rate_limited'::text, p_releases, NULL::uuid, NULL::numeric,
                NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
                '[]'::text, wait, now_revision;
            RETURN;
        END IF;
    END IF;
    BEGIN
        IF p_key_lease IS NOT NULL
           AND NOT take_limit_lease(p_key_lease, 'key', p_key, p_holder, p_ttl_seconds,
                                    p_key_max) THEN
            SELECT 'key_busy'::text AS outcome, p_releases AS releases, NULL::uuid AS budget_id,
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
            IF a.outcome IN ('refused', 'no_capacity') THEN
                RAISE EXCEPTION USING ERRCODE = 'TS001';
            END IF;
        END IF;
    EXCEPTION WHEN SQLSTATE 'TS001' THEN
        NULL; -- the block's writes are undone; a keeps the answer
    END;
    RETURN QUERY SELECT a.outcome, a.releases, a.budget_id, a.rho_limit, a.rho_top_up,
        a.rho_spent, a.delta, a.period_end, a.in_flight, a.nodes, 0, now_revision;
END $$;
