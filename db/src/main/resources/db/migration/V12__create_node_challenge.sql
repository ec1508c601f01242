-- Fleet proof for node registration (issue 18): the marketplace wraps a random nonce to the fleet's
-- public key; a node registers only by sending it back, so only a holder of the fleet's private key
-- can join the fleet. Each challenge is for one credential, fleet and node name, lives two minutes
-- and is used once. Only the nonce's SHA-256 is kept.
CREATE TABLE node_challenge (
    id           uuid        PRIMARY KEY,
    client_id    text        NOT NULL CHECK (char_length(client_id) BETWEEN 1 AND 255),
    fleet_id     uuid        NOT NULL REFERENCES node_fleet (id),
    node_name    text        NOT NULL CHECK (node_name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    nonce_sha256 bytea       NOT NULL CHECK (octet_length(nonce_sha256) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz
);
CREATE INDEX node_challenge_expiry ON node_challenge (expires_at);
