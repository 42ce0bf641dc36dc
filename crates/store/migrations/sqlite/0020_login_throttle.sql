-- Per-account login throttling, shared by every process on the database. One row per email
-- that had a recent failed or in-flight login (the row exists whether or not an account has
-- that email, so the answers do not reveal which emails are registered).
CREATE TABLE login_throttle (
    email_digest TEXT PRIMARY KEY,  -- SHA-256 hex of the trimmed, lowercased email
    attempts INTEGER NOT NULL,      -- password checks since the last success (failed or running)
    locks INTEGER NOT NULL,         -- locks imposed since the last success
    locked_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX login_throttle_updated ON login_throttle (updated_at);
