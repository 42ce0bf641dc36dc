-- CFDI: certificates (CSD/FIEL), issued invoices, idempotency keys, stamp balance and the
-- installation's sandbox stamping key. Timestamps are TIMESTAMPTZ; money is NUMERIC.

CREATE TABLE certificados (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    kind TEXT NOT NULL,              -- CSD or FIEL
    origen TEXT NOT NULL,            -- UPLOAD, or SANDBOX for the generated test CSD
    no_certificado TEXT NOT NULL,
    rfc TEXT NOT NULL,
    vigencia_inicio TIMESTAMPTZ NOT NULL,
    vigencia_fin TIMESTAMPTZ NOT NULL,
    cer BYTEA NOT NULL,               -- DER, public
    key_enc BYTEA NOT NULL,           -- AES-256-GCM under the master key
    password_enc BYTEA NOT NULL,      -- AES-256-GCM under the master key
    created_at TIMESTAMPTZ NOT NULL
);
-- One active certificate of each kind per company: an upload replaces the previous one.
CREATE UNIQUE INDEX certificados_empresa_kind ON certificados (empresa_id, kind);

CREATE TABLE cfdis (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    tipo TEXT NOT NULL,              -- EMITIDA or RECIBIDA
    origen TEXT NOT NULL,            -- API (stamped here) or SAT_DESCARGA
    tipo_comprobante TEXT NOT NULL,  -- I, E, T, P, N
    sandbox BOOLEAN NOT NULL,
    uuid TEXT NOT NULL,              -- as the API shows it (SANDBOX- prefix in sandbox)
    uuid_xml TEXT NOT NULL,          -- the 36 characters in the XML, upper case
    serie TEXT,
    folio TEXT,
    folio_num BIGINT,
    fecha TIMESTAMPTZ NOT NULL,
    fecha_timbrado TIMESTAMPTZ,
    subtotal NUMERIC NOT NULL,
    descuento NUMERIC,
    total NUMERIC NOT NULL,
    moneda TEXT NOT NULL,
    tipo_cambio NUMERIC,
    forma_pago TEXT,
    metodo_pago TEXT,
    status TEXT NOT NULL,
    emisor_rfc TEXT NOT NULL,
    emisor_nombre TEXT NOT NULL,
    emisor_regimen TEXT NOT NULL,
    receptor_rfc TEXT NOT NULL,
    receptor_nombre TEXT NOT NULL,
    receptor_uso_cfdi TEXT NOT NULL,
    emisor_nombre_lower TEXT NOT NULL,
    receptor_nombre_lower TEXT NOT NULL,
    cliente_id TEXT,
    xml_url TEXT,
    conceptos TEXT NOT NULL,         -- JSON array of the lines
    created_at TIMESTAMPTZ NOT NULL
);
-- Listing: most recent first within a company; each search term has its own index
-- (text_pattern_ops so prefix LIKE uses them whatever the database collation).
CREATE INDEX cfdis_empresa_fecha ON cfdis (empresa_id, fecha DESC, id DESC);
CREATE INDEX cfdis_empresa_status_fecha ON cfdis (empresa_id, status, fecha DESC);
CREATE INDEX cfdis_empresa_tipo_fecha ON cfdis (empresa_id, tipo, fecha DESC);
CREATE INDEX cfdis_empresa_tc_fecha ON cfdis (empresa_id, tipo_comprobante, fecha DESC);
CREATE INDEX cfdis_empresa_uuid ON cfdis (empresa_id, uuid_xml text_pattern_ops);
CREATE INDEX cfdis_empresa_folio ON cfdis (empresa_id, folio);
CREATE INDEX cfdis_empresa_emisor_rfc ON cfdis (empresa_id, emisor_rfc text_pattern_ops);
CREATE INDEX cfdis_empresa_receptor_rfc ON cfdis (empresa_id, receptor_rfc text_pattern_ops);
CREATE INDEX cfdis_empresa_emisor_nombre ON cfdis (empresa_id, emisor_nombre_lower text_pattern_ops);
CREATE INDEX cfdis_empresa_receptor_nombre ON cfdis (empresa_id, receptor_nombre_lower text_pattern_ops);
-- A folio never repeats within a company and mode.
CREATE UNIQUE INDEX cfdis_folio_unico ON cfdis (empresa_id, sandbox, folio_num) WHERE origen = 'API';

CREATE TABLE idempotency_keys (
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    key TEXT NOT NULL,
    operation TEXT NOT NULL,
    request_hash TEXT NOT NULL,      -- SHA-256 hex of the request body
    status BIGINT NOT NULL,
    response TEXT NOT NULL,          -- the JSON body answered the first time
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (empresa_id, key)
);

CREATE TABLE timbres_saldo (
    empresa_id TEXT PRIMARY KEY REFERENCES empresas (id),
    saldo BIGINT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE timbres_movimientos (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    cantidad BIGINT NOT NULL,       -- positive: top-up; negative: consumption
    concepto TEXT NOT NULL,
    user_id TEXT,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX timbres_movimientos_empresa ON timbres_movimientos (empresa_id, created_at);

-- The installation's sandbox stamping credential (signs sandbox TimbreFiscalDigital).
CREATE TABLE sandbox_pac (
    id TEXT PRIMARY KEY,             -- always 'default'
    cer BYTEA NOT NULL,
    key_enc BYTEA NOT NULL,
    password_enc BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
