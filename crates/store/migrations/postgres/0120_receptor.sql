-- The receiver's side (issue 30): SAT's status of any CFDI as last read, the watch of received
-- CFDI, and the cancellation requests where the company is the receiver.

-- SAT's ConsultaCFDIService fields, with SAT's own words, as last read (GET
-- /api/cfdi/{id}/estado-sat or the watch job); NULL until asked.
ALTER TABLE cfdis ADD COLUMN estado_sat TEXT;                  -- Vigente, Cancelado, No Encontrado
ALTER TABLE cfdis ADD COLUMN es_cancelable_sat TEXT;           -- Cancelable sin aceptación, ...
ALTER TABLE cfdis ADD COLUMN estatus_cancelacion_sat TEXT;     -- '', En proceso, Plazo vencido, ...
ALTER TABLE cfdis ADD COLUMN validacion_efos TEXT;             -- 200, 201, 100-104
ALTER TABLE cfdis ADD COLUMN codigo_estatus_sat TEXT;          -- S - Comprobante obtenido ...
ALTER TABLE cfdis ADD COLUMN estado_sat_consultado_en TIMESTAMPTZ;
-- When SAT's Estado or EstatusCancelacion last changed between two readings (the Buzón).
ALTER TABLE cfdis ADD COLUMN estado_sat_cambiado_en TIMESTAMPTZ;
-- Received CFDI: when the watch asks SAT again (NULL = as soon as it can).
ALTER TABLE cfdis ADD COLUMN estado_sat_revisar_en TIMESTAMPTZ;
CREATE INDEX cfdis_vigilancia ON cfdis (estado_sat_revisar_en) WHERE tipo = 'RECIBIDA';
CREATE INDEX cfdis_estado_sat_cambiado ON cfdis (empresa_id, estado_sat_cambiado_en) WHERE estado_sat_cambiado_en IS NOT NULL;

-- Cancellation requests of CFDI the company received: from the PAC (Finkok get_pending) or,
-- in sandbox, from a sandbox company of this installation cancelling a CFDI issued to it.
CREATE TABLE solicitudes_cancelacion (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),   -- the receiver
    uuid TEXT NOT NULL,                   -- the CFDI's UUID, upper case
    origen TEXT NOT NULL,                                -- PAC or SANDBOX
    rfc_emisor TEXT,                                     -- when the service knows it (sandbox)
    nombre_emisor TEXT,
    total NUMERIC,
    cfdi_emitido_id TEXT,                                -- sandbox: the issuer's invoice
    fecha_solicitud TIMESTAMPTZ NOT NULL,
    plazo_vence TIMESTAMPTZ NOT NULL,
    respuesta TEXT,                                      -- aceptar, rechazar
    estatus TEXT,                                        -- SAT's EstatusCancelacion after it ended
    acuse TEXT,                                          -- the acuse of the answer (XML)
    respondida_en TIMESTAMPTZ,
    cerrada_en TIMESTAMPTZ,                                     -- ended without this company's answer
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
-- One open request per company and UUID: a poll that meets it again does not repeat it.
CREATE UNIQUE INDEX solicitudes_cancelacion_abierta ON solicitudes_cancelacion (empresa_id, uuid)
    WHERE respuesta IS NULL AND cerrada_en IS NULL;
CREATE INDEX solicitudes_cancelacion_empresa ON solicitudes_cancelacion (empresa_id, uuid, created_at);
CREATE INDEX solicitudes_cancelacion_emitido ON solicitudes_cancelacion (cfdi_emitido_id) WHERE cfdi_emitido_id IS NOT NULL;
