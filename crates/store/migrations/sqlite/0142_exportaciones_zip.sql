-- A period's CFDI in one ZIP (issue 32): POST /api/cfdi/zip writes a row here and its job (same
-- id) streams the period's XML (and PDF) and resumen.csv into a ZIP in the file storage.
CREATE TABLE exportaciones_zip (
    id TEXT PRIMARY KEY,                       -- the job's id (jobId)
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    filtro TEXT NOT NULL,                      -- the request as checked (JSON)
    status TEXT NOT NULL,                      -- PENDIENTE, EN_PROCESO, TERMINADO, FALLIDO
    cfdis INTEGER NOT NULL DEFAULT 0,           -- rows of resumen.csv
    archivos INTEGER NOT NULL DEFAULT 0,        -- files in the ZIP, resumen.csv included
    bytes INTEGER NOT NULL DEFAULT 0,           -- size of the ZIP
    path TEXT,                                 -- where it is in the file storage
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX exportaciones_zip_empresa ON exportaciones_zip (empresa_id, created_at);
-- The export pages oldest first on (fecha, id): cfdis_empresa_fecha read backwards.
