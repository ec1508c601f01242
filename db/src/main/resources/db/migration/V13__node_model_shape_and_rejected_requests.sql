-- Incompatible adapters (issue 18). Nodes report the shape of the model they serve, so that an
-- upload can be checked against it: hidden size, MLP width, layers, attention heads, key/value heads
-- and head width, in that order. A request whose adapter the node refuses as incompatible ends as
-- 'rejected' (a 422 to the client, refunded), not as a retryable failure.
ALTER TABLE node ADD COLUMN model_shape integer[]
    CHECK (model_shape IS NULL OR (cardinality(model_shape) = 6 AND 0 < ALL (model_shape)));

ALTER TABLE gateway_request DROP CONSTRAINT gateway_request_outcome_check;
ALTER TABLE gateway_request ADD CONSTRAINT gateway_request_outcome_check
    CHECK (outcome IN ('completed', 'client_gone', 'node_failed', 'no_node', 'node_timeout',
                       'rejected'));
