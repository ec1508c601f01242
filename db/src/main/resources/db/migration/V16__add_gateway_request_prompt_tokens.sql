-- The marketplace counts each prompt with the nodes' tokenizer (issue 18) and bills that count, not
-- the node's claim; a usage report is billed by it too. Null for requests recorded before.
ALTER TABLE gateway_request
    ADD COLUMN prompt_tokens integer CHECK (prompt_tokens >= 0);
