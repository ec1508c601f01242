-- A DP policy without noise (noise multiplier 0) is the creator's choice (ADR 0035, issue 49): the
-- node adds nothing and no budget is spent. V2's check refused it (> 0); the upload rule (0, or at
-- least 0.3) is the marketplace's, and the table only keeps the multiplier non-negative.
ALTER TABLE dp_policy
    DROP CONSTRAINT dp_policy_noise_multiplier_check,
    ADD CONSTRAINT dp_policy_noise_multiplier_check CHECK (noise_multiplier >= 0);
