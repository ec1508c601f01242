-- Privacy budgets are accounted in releases, not tokens (ADR 0010, addendum of 2026-11-23): one
-- release is one clipped, noised LoRA input, and a node makes one per distinct adapter input for
-- every token its model processes, prompt tokens included. The ρ column was always the account;
-- the count beside it is renamed to say what it counts. Events written before this counted
-- generated tokens.
ALTER TABLE dp_budget_event RENAME COLUMN tokens TO releases;
ALTER TABLE dp_budget_event RENAME CONSTRAINT dp_budget_event_tokens_check TO dp_budget_event_releases_check;
