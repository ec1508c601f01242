-- One private price per 1k tokens processed (issue 33, ADR 0024): prefill and decode cost a node
-- the same work in private mode, so a private session pays prompt and completion tokens alike and
-- a client gains nothing by sending generated tokens as prefill. Rows that carried V19's two parts
-- keep the larger, so no private session pays less than its dearer part did; rows without one stay
-- without (private sessions then pay the larger of the hosted prompt and completion prices).
ALTER TABLE adapter_price
    ADD COLUMN private_micros_per_1k_tokens bigint CHECK (private_micros_per_1k_tokens > 0);

-- Price rows are append-only (V2's trigger); this rewrite of history is the migration's alone.
ALTER TABLE adapter_price DISABLE TRIGGER adapter_price_append_only;
UPDATE adapter_price
SET private_micros_per_1k_tokens = greatest(private_prompt_micros_per_1k_tokens,
                                            private_completion_micros_per_1k_tokens)
WHERE private_prompt_micros_per_1k_tokens IS NOT NULL;
ALTER TABLE adapter_price ENABLE TRIGGER adapter_price_append_only;

ALTER TABLE adapter_price
    DROP CONSTRAINT adapter_price_private_whole,
    DROP COLUMN private_prompt_micros_per_1k_tokens,
    DROP COLUMN private_completion_micros_per_1k_tokens;
