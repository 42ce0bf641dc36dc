-- E-mail of CFDI (issue 32). Each sending of a CFDI to its addresses is a row, written with the
-- durable job (`correo.enviar`) that sends it; the job records every attempt here.
CREATE TABLE correos (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    cfdi_id TEXT NOT NULL REFERENCES cfdis (id),
    motivo TEXT NOT NULL,                     -- TIMBRADO (the CFDI) | CANCELACION (the notice)
    para TEXT NOT NULL,                       -- JSON array of addresses
    cc TEXT NOT NULL,                         -- JSON array of addresses
    estado TEXT NOT NULL,                     -- PENDIENTE | ENVIADO | FALLIDO
    intentos BIGINT NOT NULL DEFAULT 0,
    ultimo_error TEXT,
    enviado_en TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX correos_cfdi ON correos (empresa_id, cfdi_id, created_at);

-- The company's e-mail settings (PATCH /api/empresas/{empresaId} `correo`).
ALTER TABLE empresas ADD COLUMN correo_nombre_remitente TEXT;
ALTER TABLE empresas ADD COLUMN correo_responder_a TEXT;
ALTER TABLE empresas ADD COLUMN correo_enviar_al_timbrar BOOLEAN NOT NULL DEFAULT FALSE;
