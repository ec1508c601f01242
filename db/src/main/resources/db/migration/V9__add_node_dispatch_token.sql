-- The secret a node chose when it last registered (256 random bits, base64url): the marketplace
-- presents it on every request it dispatches to the node, and the node serves no one else. A node
-- with an endpoint must have one; nodes registered before this have none, so they are not
-- dispatched to until they register again (which a node does at every start).
ALTER TABLE node ADD COLUMN dispatch_token text
    CONSTRAINT node_dispatch_token_format CHECK (dispatch_token ~ '^[A-Za-z0-9_-]{43}$');
UPDATE node SET endpoint = NULL;
ALTER TABLE node ADD CONSTRAINT node_endpoint_has_dispatch_token
    CHECK (endpoint IS NULL OR dispatch_token IS NOT NULL);
