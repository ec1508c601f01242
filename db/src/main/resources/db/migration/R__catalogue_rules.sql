-- Repeatable (ADR 0038): the one current copy of these functions. Flyway re-applies this file
-- after the versioned migrations whenever its text changes; change them here, never in a new
-- versioned migration (the versioned files that first created them are history).
--
-- Functions that read tables are PL/pgSQL, not SQL: PostgreSQL 15 parses and plans a SQL
-- function's body again on each execution of a statement that calls it (it inlines only bodies
-- without FROM), about 0.2 ms a call here; PL/pgSQL keeps its plans for the session (ADR 0041).

-- Whether API key p_key may be used: neither it nor its creator is revoked or suspended, at least
-- one member of its organisation is not suspended, and its organisation is not suspended. Null when
-- there is no such key.
CREATE OR REPLACE FUNCTION api_key_usable(p_key uuid) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT k.revoked_at IS NULL AND k.suspended_at IS NULL
               AND NOT EXISTS (SELECT 1 FROM app_user u
                               WHERE u.id = k.created_by AND u.suspended_at IS NOT NULL)
               AND EXISTS (SELECT 1 FROM organisation_member m
                           JOIN app_user u ON u.id = m.user_id
                           WHERE m.organisation_id = k.organisation_id AND u.suspended_at IS NULL)
               AND NOT EXISTS (SELECT 1 FROM organisation o
                               WHERE o.id = k.organisation_id AND o.suspended_at IS NOT NULL)
        FROM api_key k WHERE k.id = p_key);
END $$;

-- Advances catalogue_revision (V29) with every row written to adapter, adapter_version,
-- adapter_price or creator, the tables ServedCatalogue copies.
CREATE OR REPLACE FUNCTION bump_catalogue_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE catalogue_revision SET revision = revision + 1;
    RETURN NULL;
END $$;

-- The version of adapter p_adapter that requests naming it without a version are served by at
-- p_at: its highest published version with a price in force at p_at and newest_from not after
-- p_at. Null when none is. The rule ServedVersions applies to its copy (ServedCatalogue), and the
-- one publishing and unpublishing judge "the version it replaces" by (adapter.NewVersionNotice);
-- the adapter's and creator's suspension are checked by the callers.
CREATE OR REPLACE FUNCTION newest_version_at(p_adapter uuid, p_at timestamptz)
RETURNS uuid LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT n.id FROM adapter_version n
        WHERE n.adapter_id = p_adapter AND n.state = 'published'
          AND (n.newest_from IS NULL OR n.newest_from <= p_at)
          AND EXISTS (SELECT 1 FROM adapter_price q WHERE q.adapter_version_id = n.id
                      AND q.effective_from <= p_at)
        ORDER BY n.version_major DESC, n.version_minor DESC, n.version_patch DESC
        LIMIT 1);
END $$;

-- Whether version p_version is still served as the gateway routed to it: published, its adapter
-- and creator not suspended, p_price the price row in force at p_at and, when p_newest (the model
-- was named without a version), newest_version_at.
CREATE OR REPLACE FUNCTION version_still_served(p_version uuid, p_newest boolean, p_price bigint,
                                                p_at timestamptz)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT EXISTS (
            SELECT 1 FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
            JOIN creator c ON c.id = a.creator_id
            WHERE v.id = p_version AND v.state = 'published' AND a.suspended_at IS NULL
              AND c.suspended_at IS NULL
              AND (SELECT p.id FROM adapter_price p WHERE p.adapter_version_id = v.id
                   AND p.effective_from <= p_at ORDER BY p.effective_from DESC LIMIT 1) = p_price
              AND (NOT p_newest OR newest_version_at(v.adapter_id, p_at) = v.id)));
END $$;
