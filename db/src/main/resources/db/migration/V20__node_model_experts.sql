-- Mixture-of-experts base models (issue 23). A node serving a Qwen3-MoE model also reports its
-- experts: how many, how many each token runs, one expert's width, the sparse step, then the layers
-- that keep a dense MLP (from 0). Uploads of adapters on experts are checked against it, and the
-- privacy budget counts a token's releases with its experts per token.
ALTER TABLE node ADD COLUMN model_experts integer[]
    CHECK (model_experts IS NULL
           OR (cardinality(model_experts) >= 4 AND 0 <= ALL (model_experts)
               AND 0 < ALL (model_experts[1:4])));
