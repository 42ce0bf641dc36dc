-- A platform's month in one call (issue 34): POST /api/retenciones/lote keeps the bodies here
-- and a job (same id) stamps them a chunk at a time; each chunk's stamps and this row's progress
-- commit together, so a crash resumes at `siguiente` and nothing is stamped twice.
CREATE TABLE retenciones_lotes (
    id TEXT PRIMARY KEY,                       -- the job's id
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    user_id TEXT NOT NULL,
    total BIGINT NOT NULL,
    siguiente BIGINT NOT NULL DEFAULT 0,           -- index of the next body to stamp
    timbradas BIGINT NOT NULL DEFAULT 0,
    errores TEXT NOT NULL DEFAULT '[]',        -- [{indice, codigo, mensaje}]
    status TEXT NOT NULL,                      -- PENDIENTE, EN_PROCESO, TERMINADO
    cuerpos TEXT NOT NULL,                     -- the bodies sent (JSON array); '[]' once TERMINADO
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
