-- Price caps (issue 18). An API key may carry the most it will pay per 1,000 tokens, in one
-- currency; routing never sends its requests to an adapter priced above it (or in another
-- currency), and naming such an adapter is refused before anything is reserved.
ALTER TABLE api_key
    ADD COLUMN max_price_currency                  char(3) CHECK (max_price_currency ~ '^[A-Z]{3}$'),
    ADD COLUMN max_prompt_micros_per_1k_tokens     bigint  CHECK (max_prompt_micros_per_1k_tokens > 0),
    ADD COLUMN max_completion_micros_per_1k_tokens bigint  CHECK (max_completion_micros_per_1k_tokens > 0),
    ADD CONSTRAINT api_key_price_cap_whole CHECK (
        (max_price_currency IS NULL) = (max_prompt_micros_per_1k_tokens IS NULL)
        AND (max_price_currency IS NULL) = (max_completion_micros_per_1k_tokens IS NULL));
