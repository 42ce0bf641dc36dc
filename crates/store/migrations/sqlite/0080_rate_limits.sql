-- The PostgreSQL migration of this number creates the shared rate limit buckets; SQLite runs
-- one process, whose buckets live in memory. Kept so both backends number alike.
SELECT 1;
