-- A separate price for private mode (issue 21, ADR 0017): a price row may carry one, both parts or
-- neither. A private session is charged the private price in force when it started, else the
-- hosted one.
ALTER TABLE adapter_price
    ADD COLUMN private_prompt_micros_per_1k_tokens bigint
        CHECK (private_prompt_micros_per_1k_tokens > 0),
    ADD COLUMN private_completion_micros_per_1k_tokens bigint
        CHECK (private_completion_micros_per_1k_tokens > 0),
    ADD CONSTRAINT adapter_price_private_whole CHECK (
        (private_prompt_micros_per_1k_tokens IS NULL)
        = (private_completion_micros_per_1k_tokens IS NULL));
