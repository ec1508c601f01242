-- A new version is a price rise without notice (issue 35, creators; ADR 0028). A model named
-- without a version, and auto, took an adapter's newest published version the moment it was
-- published, at its manifest's price: a version at 100 times the price was billed at 100 times on
-- the very next such request. Now a version counts as its adapter's newest only from newest_from:
-- its publication when it costs no more than the version it replaces, else the end of the
-- price-rise notice (tensafe.catalog.price-rise-notice). The marketplace sets it on publishing
-- (adapter.NewVersionNotice, the rise judged by adapter.PriceLevel, the rule price changes use);
-- the catalogue shows it, and a version named with its version serves at once.

-- From when the version may serve requests that name its adapter without a version (and auto).
-- Null for versions never published since this column was added: those published before it serve
-- so already, as they did (a published version is given one on every publication from now on).
ALTER TABLE adapter_version ADD COLUMN newest_from timestamptz;

UPDATE adapter_version SET newest_from = published_at
WHERE state = 'published' AND published_at IS NOT NULL;

-- The version of adapter p_adapter that requests naming it without a version are served by at
-- p_at: its highest published version with a price in force at p_at and newest_from not after
-- p_at. Null when none is. The rule ServedVersions applies to its copy (ServedCatalogue), and the
-- one publishing judges "the version it replaces" by; the adapter's and creator's suspension are
-- checked by the callers.
CREATE FUNCTION newest_version_at(p_adapter uuid, p_at timestamptz)
RETURNS uuid LANGUAGE sql STABLE AS $$
    SELECT n.id FROM adapter_version n
    WHERE n.adapter_id = p_adapter AND n.state = 'published'
      AND (n.newest_from IS NULL OR n.newest_from <= p_at)
      AND EXISTS (SELECT 1 FROM adapter_price q WHERE q.adapter_version_id = n.id
                  AND q.effective_from <= p_at)
    ORDER BY n.version_major DESC, n.version_minor DESC, n.version_patch DESC
    LIMIT 1
$$;

-- As V29's, except that "still its adapter's newest" (p_newest) is newest_version_at: a higher
-- version whose notice has not ended does not replace it, and it is not the newest itself before
-- its own notice ends.
CREATE OR REPLACE FUNCTION version_still_served(p_version uuid, p_newest boolean, p_price bigint,
                                                p_at timestamptz)
RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
        JOIN creator c ON c.id = a.creator_id
        WHERE v.id = p_version AND v.state = 'published' AND a.suspended_at IS NULL
          AND c.suspended_at IS NULL
          AND (SELECT p.id FROM adapter_price p WHERE p.adapter_version_id = v.id
               AND p.effective_from <= p_at ORDER BY p.effective_from DESC LIMIT 1) = p_price
          AND (NOT p_newest OR newest_version_at(v.adapter_id, p_at) = v.id))
$$;
