-- Private mode (issue 21, ADR 0017). A private session is a gateway request whose tokens the
-- marketplace counts from the frames it relays. The served counts are written as each step begins,
-- with the time (active_at), so a session whose marketplace died is still billed for what it was
-- served: any replica settles a private session that has been silent for twice its idle timeout.
ALTER TABLE gateway_request
    ADD COLUMN mode text NOT NULL DEFAULT 'hosted' CHECK (mode IN ('hosted', 'private')),
    ADD COLUMN served_prompt_tokens integer CHECK (served_prompt_tokens >= 0),
    ADD COLUMN served_completion_tokens integer CHECK (served_completion_tokens >= 0),
    ADD COLUMN active_at timestamptz,
    ADD CONSTRAINT gateway_request_served_private CHECK (
        mode = 'private' OR (served_prompt_tokens IS NULL AND served_completion_tokens IS NULL));
CREATE INDEX gateway_request_open_private ON gateway_request (started_at)
    WHERE mode = 'private' AND ended_at IS NULL;
