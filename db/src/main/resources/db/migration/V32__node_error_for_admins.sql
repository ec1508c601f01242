-- Issue 35: a node's own words about a failure (its error event's detail, or how its stream
-- broke) are kept for admins, never passed to the client, who is given a fixed message with the
-- request id. At most 500 characters: a node controls this text.
ALTER TABLE gateway_request
  ADD COLUMN node_error text CHECK (char_length(node_error) <= 500);
