-- The company's FIEL (e.firma), used to download its invoices from SAT's descarga masiva.
-- One per company: an upload replaces the previous one. The key and its password are
-- encrypted with the master key (AES-256-GCM), like the CSD's.
CREATE TABLE fiel (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL UNIQUE REFERENCES empresas (id),
    no_certificado TEXT NOT NULL,
    rfc TEXT NOT NULL,
    vigencia_inicio TEXT NOT NULL,
    vigencia_fin TEXT NOT NULL,
    cer BLOB NOT NULL,               -- DER, public
    key_enc BLOB NOT NULL,           -- AES-256-GCM under the master key
    password_enc BLOB NOT NULL,      -- AES-256-GCM under the master key
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
