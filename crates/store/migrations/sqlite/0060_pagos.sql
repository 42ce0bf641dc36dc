-- Payments (Pagos 2.0): the balance the service keeps of every PPD invoice it issued, what
-- each payment applied to each invoice, and the series payments use per company.

ALTER TABLE empresas ADD COLUMN serie_pagos TEXT NOT NULL DEFAULT 'P';

-- One row per PPD invoice, written by the trigger below in the invoice's own transaction:
-- saldo_insoluto starts at the invoice's Total (in its currency) and ultima_parcialidad at 0.
-- Payments move both in their stamp's transaction; a refused or cancelled payment gives its
-- amount back.
CREATE TABLE saldos_ppd (
    cfdi_id TEXT PRIMARY KEY REFERENCES cfdis (id),
    empresa_id TEXT NOT NULL,
    saldo_insoluto TEXT NOT NULL,
    pendiente INTEGER NOT NULL,      -- saldo_insoluto > 0 (listing filter saldoPendiente)
    ultima_parcialidad INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX saldos_ppd_empresa_pendiente ON saldos_ppd (empresa_id, pendiente);

INSERT INTO saldos_ppd (cfdi_id, empresa_id, saldo_insoluto, pendiente, ultima_parcialidad, created_at, updated_at)
    SELECT id, empresa_id, total, CASE WHEN CAST(total AS REAL) > 0 THEN 1 ELSE 0 END, 0, created_at, created_at
    FROM cfdis WHERE tipo = 'EMITIDA' AND origen = 'API' AND tipo_comprobante = 'I' AND metodo_pago = 'PPD';

CREATE TRIGGER saldos_ppd_insert AFTER INSERT ON cfdis
    WHEN new.tipo = 'EMITIDA' AND new.origen = 'API' AND new.tipo_comprobante = 'I' AND new.metodo_pago = 'PPD'
BEGIN
    INSERT INTO saldos_ppd (cfdi_id, empresa_id, saldo_insoluto, pendiente, ultima_parcialidad, created_at, updated_at)
        VALUES (new.id, new.empresa_id, new.total, CASE WHEN CAST(new.total AS REAL) > 0 THEN 1 ELSE 0 END, 0,
            new.created_at, new.created_at);
END;

-- What a payment applied to one invoice. pago_id is the payment CFDI's id; in live mode the row
-- is written when the stamp is reserved (before the PAC is called), so it may name an attempt
-- that has no invoice yet. APLICADO holds the amount; DEVUELTO gave it back (the PAC refused
-- the payment, or it was cancelled).
CREATE TABLE pagos_doctos (
    pago_id TEXT NOT NULL,
    cfdi_id TEXT NOT NULL REFERENCES cfdis (id),
    empresa_id TEXT NOT NULL,
    num_parcialidad INTEGER NOT NULL,
    imp_saldo_ant TEXT NOT NULL,
    imp_pagado TEXT NOT NULL,
    imp_saldo_insoluto TEXT NOT NULL,
    fecha_pago TEXT NOT NULL,        -- FechaPago as the XML carries it (issuer's local time)
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (pago_id, cfdi_id)
);
CREATE INDEX pagos_doctos_cfdi ON pagos_doctos (cfdi_id, num_parcialidad);
-- The last guard of the balances: one applied payment per installment of an invoice.
CREATE UNIQUE INDEX pagos_doctos_parcialidad_unica ON pagos_doctos (cfdi_id, num_parcialidad) WHERE status = 'APLICADO';
