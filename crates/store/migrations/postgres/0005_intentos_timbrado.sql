-- Live stamping spends a folio before the PAC answers (the folio is inside the sealed XML).
-- Every such attempt is a row, so every gap in the live folios is explained: TIMBRADO (the
-- invoice with this id exists), RECHAZADO (the PAC refused: pac_code, error), SIN_RESPUESTA
-- (no answer even after asking the PAC for the stamp), ENVIADO (in flight, or the process
-- died while waiting: reconcile with the PAC).
CREATE TABLE intentos_timbrado (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    serie TEXT NOT NULL,
    folio BIGINT NOT NULL,
    status TEXT NOT NULL,
    pac_code TEXT,
    error TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX intentos_timbrado_folio ON intentos_timbrado (empresa_id, folio);
