-- The company's FIEL (e.firma), used to download its invoices from SAT's descarga masiva.
-- One per company: an upload replaces the previous one. The key and its password are
-- encrypted with the master key (AES-256-GCM), like the CSD's.
CREATE TABLE fiel (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL UNIQUE REFERENCES empresas (id),
    no_certificado TEXT NOT NULL,
    rfc TEXT NOT NULL,
    vigencia_inicio TIMESTAMPTZ NOT NULL,
    vigencia_fin TIMESTAMPTZ NOT NULL,
    cer BYTEA NOT NULL,               -- DER, public
    key_enc BYTEA NOT NULL,           -- AES-256-GCM under the master key
    password_enc BYTEA NOT NULL,      -- AES-256-GCM under the master key
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
