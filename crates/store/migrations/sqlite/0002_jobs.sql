-- Durable background jobs, events and webhook endpoints with their delivery log.
-- Timestamps are sqlx-encoded OffsetDateTime text in UTC.
-- A job is a row before it is work: enqueued in the transaction of the change that causes it.

CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    empresa_id TEXT,                -- company the work belongs to (NULL = system work)
    payload TEXT NOT NULL,          -- JSON
    status TEXT NOT NULL,           -- queued | running | done | dead
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    run_at TEXT NOT NULL,           -- queued: when due; running: when the lease expires
    lease_until TEXT,
    locked_by TEXT,
    last_error TEXT,
    dedupe_key TEXT UNIQUE,         -- scheduled and recurring jobs: one row per occurrence
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX jobs_claim ON jobs (status, run_at);
CREATE INDEX jobs_empresa ON jobs (empresa_id, status);

CREATE TABLE events (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    type TEXT NOT NULL,
    data TEXT NOT NULL,             -- JSON
    created_at TEXT NOT NULL
);
CREATE INDEX events_empresa ON events (empresa_id, created_at);

CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    url TEXT NOT NULL,
    events TEXT,                    -- JSON array of types; NULL = every type
    description TEXT,
    secret TEXT NOT NULL,
    active INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
);
CREATE INDEX webhooks_empresa ON webhooks (empresa_id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL REFERENCES webhooks (id),
    event_id TEXT NOT NULL REFERENCES events (id),
    status TEXT NOT NULL,           -- pending | succeeded | failed
    attempts INTEGER NOT NULL DEFAULT 0,
    next_retry_at TEXT,
    last_status_code INTEGER,
    last_latency_ms INTEGER,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at);
