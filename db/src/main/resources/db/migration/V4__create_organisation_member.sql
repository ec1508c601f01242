-- Organisation membership (issue 5): a person may belong to several organisations, as owner or
-- member. app_user.organisation_id stays the personal organisation made at first contact; every
-- person owns it.
CREATE TABLE organisation_member (
    organisation_id uuid        NOT NULL REFERENCES organisation (id),
    user_id         uuid        NOT NULL REFERENCES app_user (id),
    role            text        NOT NULL CONSTRAINT organisation_member_role CHECK (role IN ('owner', 'member')),
    added_at        timestamptz NOT NULL DEFAULT now(),
    added_by        uuid        REFERENCES app_user (id),
    PRIMARY KEY (organisation_id, user_id)
);
CREATE INDEX organisation_member_user ON organisation_member (user_id);

INSERT INTO organisation_member (organisation_id, user_id, role, added_at)
SELECT organisation_id, id, 'owner', created_at FROM app_user;
