-- Rate limit buckets shared by every instance on this database (GCRA: `tat` is the bucket's
-- theoretical arrival time in epoch seconds, by the database's clock). UNLOGGED: a crash of
-- the database forgets the buckets, which only refills them; no created_at: a row is one
-- number that changes on every request, and full buckets are deleted by the daily purge.
CREATE UNLOGGED TABLE rate_limits (
    bucket BYTEA PRIMARY KEY,
    tat DOUBLE PRECISION NOT NULL,
    granted BOOLEAN NOT NULL
);
