-- Organisations are the tenants of the marketplace: every creator, client and API key belongs to
-- exactly one. Later migrations reference organisation(id).
CREATE TABLE organisation (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    slug         text        NOT NULL UNIQUE
                             CONSTRAINT organisation_slug_format CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
    display_name text        NOT NULL
                             CONSTRAINT organisation_display_name_length CHECK (char_length(display_name) BETWEEN 1 AND 200),
    created_at   timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE organisation IS 'Tenants: every creator, client and API key belongs to one.';
COMMENT ON COLUMN organisation.slug IS 'Stable URL-safe identifier, 2-63 chars of [a-z0-9-].';
