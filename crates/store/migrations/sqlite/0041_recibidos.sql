-- Received invoices downloaded from SAT (descarga masiva): their download state, the seal
-- checks made on arrival, one row per UUID per company, the daily download quota per RFC,
-- the progress of each month's synchronization and the answers of downloads by UUID.

-- COMPLETE, METADATA_ONLY or PERMANENT_METADATA_ONLY for received rows; NULL for issued ones
-- (the API shows COMPLETE when the XML is stored).
ALTER TABLE cfdis ADD COLUMN xml_download_status TEXT;
-- Background download retries made for a METADATA_ONLY row (at most 8), and the next one.
ALTER TABLE cfdis ADD COLUMN xml_retry_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cfdis ADD COLUMN xml_next_retry_at TEXT;
-- Checks on arrival: VERIFICADO, INVALIDO; the TFD also NO_VERIFICADO (SAT's certificate not
-- in TIMBRA_SAT_CERTS_DIR) or SIN_TIMBRE. NULL for issued rows and metadata-only rows.
ALTER TABLE cfdis ADD COLUMN verificacion_sello TEXT;
ALTER TABLE cfdis ADD COLUMN verificacion_timbre TEXT;
-- A received UUID is stored once per company: a sync or a download that meets it again skips it.
CREATE UNIQUE INDEX cfdis_recibida_uuid ON cfdis (empresa_id, uuid_xml) WHERE tipo = 'RECIBIDA';

-- XML downloads counted per RFC and day (America/Mexico_City), the limit checked and the
-- count raised in one UPDATE, so several processes never pass it together.
CREATE TABLE sat_cuota (
    rfc TEXT NOT NULL,
    dia TEXT NOT NULL,               -- AAAA-MM-DD in Mexico City
    usadas INTEGER NOT NULL,
    concedidas INTEGER NOT NULL DEFAULT 0,  -- what the last reservation granted
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (rfc, dia)
);

-- One row per sync-recibidos job (same id): what SAT was asked and how far the job got, so a
-- restarted job resumes without asking SAT again.
CREATE TABLE sincronizaciones (
    id TEXT PRIMARY KEY,             -- the job's id
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    anio INTEGER NOT NULL,
    mes INTEGER NOT NULL,
    estado TEXT NOT NULL,            -- RUNNING, DONE, FAILED
    id_solicitud TEXT,               -- SAT's IdSolicitud once accepted
    paquetes TEXT,                   -- JSON array of SAT's package ids once finished
    paquetes_hechos INTEGER NOT NULL DEFAULT 0,
    cfdi_total INTEGER,
    cfdi_hechos INTEGER NOT NULL DEFAULT 0,
    cfdi_nuevos INTEGER NOT NULL DEFAULT 0,
    cfdi_ilegibles INTEGER NOT NULL DEFAULT 0,
    error_code TEXT,
    error_message TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX sincronizaciones_empresa ON sincronizaciones (empresa_id, created_at);
-- One running synchronization per company, also when two requests race.
CREATE UNIQUE INDEX sincronizaciones_en_curso ON sincronizaciones (empresa_id) WHERE estado = 'RUNNING';

-- Downloads by UUID that run as jobs (same id): the answer, once there is one.
CREATE TABLE descargas_uuid (
    id TEXT PRIMARY KEY,             -- the job's id (jobId)
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    uuid TEXT NOT NULL,
    estado TEXT NOT NULL,            -- RUNNING, DONE
    http_status INTEGER,
    respuesta TEXT,                  -- the JSON body answered
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX descargas_uuid_empresa ON descargas_uuid (empresa_id, created_at);
