-- The admission in one database call (issue 34, ADR 0026, second part). V28's admit_request folded
-- the node slots, the request's record and its reservation; the API-key check, the key's rate and
-- slot, and the version's resolution were still a round trip each before it. Now:
--   * the gateway resolves the version from its in-memory copy of the served catalogue and the key
--     from its in-memory copy of the keys it verified, and admit confirms both: the key is still
--     usable (api_key_usable, the one place that rule is written) and the catalogue has not
--     changed since the copy was read (catalogue_revision, bumped by every write to the tables a
--     served version is read from);
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

-- One row: advances with every statement that writes adapter, adapter_version, adapter_price or
-- creator, the tables ServedVersions reads the catalogue from. A replica whose copy was read at an
-- older revision reads it again before it admits anything from it.
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

CREATE TRIGGER adapter_catalogue AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON adapter
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_version_catalogue AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON adapter_version FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER adapter_price_catalogue AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON adapter_price
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_revision();
CREATE TRIGGER creator_catalogue AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON creator
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_revision();

-- The admission, in this order (the order the separate calls refused in):
--   1. 'key_unusable' when p_key is not usable (the gateway answers 401);
--   2. 'catalogue_changed' when p_catalogue is set and is not the revision now (the gateway reads
--      the catalogue again and resolves the request again);
--   3. with p_key_lease set (limits counted in the database): one request from the key's bucket,
--      'rate_limited' with retry_after when it is empty; then the key's slot, 'key_busy' when
--      every one is held. The bucket's token stays spent whatever follows, as a refused request
--      still counts against the key's rate;
--   4. admit_request (V28): node slots, the request's record, its reservation.
-- Steps 3 (the slot) and 4 run in a block of their own: on 'key_busy', 'no_capacity' or a
-- budget's 'refused' the block's writes are undone (slots, record, event) while the bucket's token
-- stays, so the caller commits and then answers the refusal. retry_after is 0 unless
-- 'rate_limited'.
CREATE FUNCTION admit(
    p_confirm_key boolean, p_catalogue bigint, p_key_lease uuid, p_per_minute double precision,
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
               in_flight numeric, nodes text, retry_after integer)
LANGUAGE plpgsql AS $$
DECLARE
    wait integer := 0;
    a record;
BEGIN
    IF p_confirm_key AND NOT coalesce(api_key_usable(p_key), false) THEN
        RETURN QUERY SELECT 'key_unusable'::text, p_releases, NULL::uuid, NULL::numeric,
            NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
            '[]'::text, 0;
        RETURN;
    END IF;
    IF p_catalogue IS NOT NULL
       AND p_catalogue <> (SELECT c.revision FROM catalogue_revision c) THEN
        RETURN QUERY SELECT 'catalogue_changed'::text, p_releases, NULL::uuid, NULL::numeric,
            NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
            '[]'::text, 0;
        RETURN;
    END IF;
    IF p_key_lease IS NOT NULL THEN
        wait := take_key_request(p_key, p_per_minute);
        IF wait > 0 THEN
            RETURN QUERY SELECT 'rate_limited'::text, p_releases, NULL::uuid, NULL::numeric,
                NULL::numeric, NULL::numeric, NULL::numeric, NULL::timestamptz, NULL::numeric,
                '[]'::text, wait;
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
        a.rho_spent, a.delta, a.period_end, a.in_flight, a.nodes, 0;
END $$;
