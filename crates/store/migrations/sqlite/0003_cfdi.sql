-- CFDI: certificates (CSD/FIEL), issued invoices, idempotency keys, stamp balance and the
-- installation's sandbox stamping key. Timestamps are sqlx-encoded text in UTC; money is TEXT.

CREATE TABLE certificados (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    kind TEXT NOT NULL,              -- CSD or FIEL
    origen TEXT NOT NULL,            -- UPLOAD, or SANDBOX for the generated test CSD
    no_certificado TEXT NOT NULL,
    rfc TEXT NOT NULL,
    vigencia_inicio TEXT NOT NULL,
    vigencia_fin TEXT NOT NULL,
    cer BLOB NOT NULL,               -- DER, public
    key_enc BLOB NOT NULL,           -- AES-256-GCM under the master key
    password_enc BLOB NOT NULL,      -- AES-256-GCM under the master key
    created_at TEXT NOT NULL
);
-- One active certificate of each kind per company: an upload replaces the previous one.
CREATE UNIQUE INDEX certificados_empresa_kind ON certificados (empresa_id, kind);

CREATE TABLE cfdis (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    tipo TEXT NOT NULL,              -- EMITIDA or RECIBIDA
    origen TEXT NOT NULL,            -- API (stamped here) or SAT_DESCARGA
    tipo_comprobante TEXT NOT NULL,  -- I, E, T, P, N
    sandbox INTEGER NOT NULL,
    uuid TEXT NOT NULL,              -- as the API shows it (SANDBOX- prefix in sandbox)
    uuid_xml TEXT NOT NULL COLLATE NOCASE,          -- the 36 characters in the XML, upper case
    serie TEXT,
    folio TEXT,
    folio_num INTEGER,
    fecha TEXT NOT NULL,
    fecha_timbrado TEXT,
    subtotal TEXT NOT NULL,
    descuento TEXT,
    total TEXT NOT NULL,
    moneda TEXT NOT NULL,
    tipo_cambio TEXT,
    forma_pago TEXT,
    metodo_pago TEXT,
    status TEXT NOT NULL,
    emisor_rfc TEXT NOT NULL COLLATE NOCASE,
    emisor_nombre TEXT NOT NULL,
    emisor_regimen TEXT NOT NULL,
    receptor_rfc TEXT NOT NULL COLLATE NOCASE,
    receptor_nombre TEXT NOT NULL,
    receptor_uso_cfdi TEXT NOT NULL,
    emisor_nombre_lower TEXT NOT NULL COLLATE NOCASE,
    receptor_nombre_lower TEXT NOT NULL COLLATE NOCASE,
    cliente_id TEXT,
    xml_url TEXT,
    conceptos TEXT NOT NULL,         -- JSON array of the lines
    created_at TEXT NOT NULL
);
-- Listing: most recent first within a company; each search term has its own index (prefix
-- LIKE on NOCASE columns uses them).
CREATE INDEX cfdis_empresa_fecha ON cfdis (empresa_id, fecha DESC, id DESC);
CREATE INDEX cfdis_empresa_status_fecha ON cfdis (empresa_id, status, fecha DESC);
CREATE INDEX cfdis_empresa_tipo_fecha ON cfdis (empresa_id, tipo, fecha DESC);
CREATE INDEX cfdis_empresa_tc_fecha ON cfdis (empresa_id, tipo_comprobante, fecha DESC);
CREATE INDEX cfdis_empresa_uuid ON cfdis (empresa_id, uuid_xml);
CREATE INDEX cfdis_empresa_folio ON cfdis (empresa_id, folio);
CREATE INDEX cfdis_empresa_emisor_rfc ON cfdis (empresa_id, emisor_rfc);
CREATE INDEX cfdis_empresa_receptor_rfc ON cfdis (empresa_id, receptor_rfc);
CREATE INDEX cfdis_empresa_emisor_nombre ON cfdis (empresa_id, emisor_nombre_lower);
CREATE INDEX cfdis_empresa_receptor_nombre ON cfdis (empresa_id, receptor_nombre_lower);
-- A folio never repeats within a company and mode.
CREATE UNIQUE INDEX cfdis_folio_unico ON cfdis (empresa_id, sandbox, folio_num) WHERE origen = 'API';

CREATE TABLE idempotency_keys (
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    key TEXT NOT NULL,
    operation TEXT NOT NULL,
    request_hash TEXT NOT NULL,      -- SHA-256 hex of the request body
    status INTEGER NOT NULL,
    response TEXT NOT NULL,          -- the JSON body answered the first time
    created_at TEXT NOT NULL,
    PRIMARY KEY (empresa_id, key)
);

CREATE TABLE timbres_saldo (
    empresa_id TEXT PRIMARY KEY REFERENCES empresas (id),
    saldo INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE timbres_movimientos (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    cantidad INTEGER NOT NULL,       -- positive: top-up; negative: consumption
    concepto TEXT NOT NULL,
    user_id TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX timbres_movimientos_empresa ON timbres_movimientos (empresa_id, created_at);

-- The installation's sandbox stamping credential (signs sandbox TimbreFiscalDigital).
CREATE TABLE sandbox_pac (
    id TEXT PRIMARY KEY,             -- always 'default'
    cer BLOB NOT NULL,
    key_enc BLOB NOT NULL,
    password_enc BLOB NOT NULL,
    created_at TEXT NOT NULL
);
