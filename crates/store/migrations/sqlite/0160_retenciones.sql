-- CFDI de Retenciones e Información de Pagos 2.0 (issue 34). A retention is stamped through the
-- same pipeline as every CFDI: its row is in `cfdis` with tipo_comprobante 'RET' (the document
-- has no TipoDeComprobante; invoice listings leave RET out) and its XML in `cfdi_xml`. What
-- only a retention has, for its listing's filters and its detail, is here.
CREATE TABLE retenciones (
    cfdi_id TEXT PRIMARY KEY REFERENCES cfdis (id),
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    folio_int TEXT,
    cve_retenc TEXT NOT NULL,                 -- c_CveRetenc
    nacionalidad TEXT NOT NULL,               -- Nacional or Extranjero
    receptor_rfc TEXT,                        -- RfcR (Nacional)
    receptor_nombre TEXT NOT NULL,
    mes_ini INTEGER NOT NULL,
    mes_fin INTEGER NOT NULL,
    ejercicio INTEGER NOT NULL,
    monto_tot_operacion TEXT NOT NULL,
    monto_tot_ret TEXT NOT NULL,
    detalle TEXT NOT NULL,                    -- the document's data under the API's names (JSON)
    created_at TEXT NOT NULL
);
CREATE INDEX retenciones_empresa_periodo ON retenciones (empresa_id, ejercicio, mes_ini);
