-- Accounts, sessions, API keys, companies, memberships, customers and products.
-- Timestamps are TIMESTAMPTZ; money is NUMERIC.

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    email_lower TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    deleted_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_email_active ON users (email_lower) WHERE deleted_at IS NULL;

CREATE TABLE sessions (
    id TEXT PRIMARY KEY,            -- SHA-256 hex of the cookie token
    user_id TEXT NOT NULL REFERENCES users (id),
    expires_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id),
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,  -- SHA-256 hex of the full key
    key_prefix TEXT NOT NULL,
    empresa_ids TEXT,               -- JSON array; NULL = every company of the user
    scopes TEXT,                    -- JSON array; NULL = every action the roles allow
    expires_at TIMESTAMPTZ,
    revoked_at TIMESTAMPTZ,
    last_used_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE empresas (
    id TEXT PRIMARY KEY,
    owner_user_id TEXT NOT NULL REFERENCES users (id),
    rfc TEXT NOT NULL,
    razon_social TEXT NOT NULL,
    regimen_fiscal TEXT NOT NULL,
    codigo_postal TEXT NOT NULL,
    nombre_comercial TEXT,
    registro_patronal TEXT,
    sandbox BOOLEAN NOT NULL,
    serie_predeterminada TEXT NOT NULL,
    folio_sandbox BIGINT NOT NULL DEFAULT 0,
    folio_live BIGINT NOT NULL DEFAULT 0,
    deleted_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX empresas_owner_rfc ON empresas (owner_user_id, rfc) WHERE deleted_at IS NULL;

CREATE TABLE memberships (
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    role TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (empresa_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE clientes (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    rfc TEXT NOT NULL,
    razon_social TEXT NOT NULL,
    regimen_fiscal TEXT NOT NULL,
    codigo_postal TEXT NOT NULL,
    uso_cfdi TEXT NOT NULL,
    email TEXT,
    search_text TEXT NOT NULL,      -- lowercase "rfc razon social" for q= searches
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX clientes_empresa ON clientes (empresa_id, created_at);
-- The generic RFCs (público en general, extranjero) may repeat.
CREATE UNIQUE INDEX clientes_empresa_rfc ON clientes (empresa_id, rfc)
    WHERE rfc NOT IN ('XAXX010101000', 'XEXX010101000');

CREATE TABLE productos (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    clave_prod_serv TEXT NOT NULL,
    clave_unidad TEXT NOT NULL,
    descripcion TEXT NOT NULL,
    precio_unitario NUMERIC NOT NULL,
    iva_rate NUMERIC NOT NULL,
    search_text TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX productos_empresa ON productos (empresa_id, created_at);
