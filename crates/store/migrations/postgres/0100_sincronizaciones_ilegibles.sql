-- The CFDI of a synchronization's packages that were read but not stored: not a readable CFDI
-- 4.0, or a folio fiscal (TFD UUID) that is not SAT's 8-4-4-4-12 hexadecimal form, which would
-- otherwise become a file name and a storage path. `GET /api/cfdi/sync-recibidos` lists them
-- with the reason; `sincronizaciones.cfdi_ilegibles` keeps the count.
CREATE TABLE sincronizaciones_ilegibles (
    id TEXT PRIMARY KEY,
    sincronizacion_id TEXT NOT NULL REFERENCES sincronizaciones (id),
    nombre TEXT NOT NULL,            -- the entry's name in SAT's ZIP (at most 200 characters)
    motivo TEXT NOT NULL,            -- why it was not stored
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sincronizaciones_ilegibles_sincronizacion ON sincronizaciones_ilegibles (sincronizacion_id, created_at);
