-- Sales tickets, the self-invoicing page and the global invoice (issue 31). A ticket keeps its
-- lines as computed (net prices, taxes per line, the same code as an invoice's) so the invoice
-- made from it, a self-invoice or its concept in a global invoice, agrees with it.
CREATE TABLE recibos (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    folio TEXT NOT NULL,
    fecha TEXT NOT NULL,                      -- the sale's instant
    moneda TEXT NOT NULL,
    tipo_cambio TEXT,
    forma_pago TEXT NOT NULL,
    conceptos TEXT NOT NULL,                  -- JSON: the lines as computed (net), with their taxes
    impuestos TEXT NOT NULL,                 -- JSON: its transferred taxes grouped by tax, factor and rate, with their bases
    subtotal TEXT NOT NULL,
    descuento TEXT,
    total TEXT NOT NULL,
    status TEXT NOT NULL,                     -- ABIERTO, FACTURADO, GLOBAL, CANCELADO
    clave_autofactura TEXT NOT NULL UNIQUE,
    vence TEXT NOT NULL,                      -- the self-invoicing page refuses the code after it
    cfdi_id TEXT,                             -- FACTURADO / GLOBAL: the invoice
    sucursal TEXT,
    email TEXT,
    search_text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX recibos_empresa_folio ON recibos (empresa_id, folio);
CREATE INDEX recibos_empresa_fecha ON recibos (empresa_id, fecha, id);
CREATE INDEX recibos_abiertos ON recibos (empresa_id, fecha) WHERE status = 'ABIERTO';
CREATE INDEX recibos_cfdi ON recibos (cfdi_id) WHERE cfdi_id IS NOT NULL;

-- A company's ticket folio counter.
ALTER TABLE empresas ADD COLUMN folio_recibo INTEGER NOT NULL DEFAULT 0;
-- The self-invoicing page (`autofactura`) and the automatic global invoice (`facturaGlobal`).
ALTER TABLE empresas ADD COLUMN autofactura_slug TEXT;
ALTER TABLE empresas ADD COLUMN autofactura_dias_vigencia INTEGER;   -- NULL: until the end of the ticket's month
ALTER TABLE empresas ADD COLUMN autofactura_activa INTEGER NOT NULL DEFAULT 1;
ALTER TABLE empresas ADD COLUMN global_automatica INTEGER NOT NULL DEFAULT 0;
ALTER TABLE empresas ADD COLUMN global_periodicidad TEXT NOT NULL DEFAULT '04';
CREATE UNIQUE INDEX empresas_autofactura_slug ON empresas (autofactura_slug) WHERE autofactura_slug IS NOT NULL;

-- Wrong codes typed on the self-invoicing pages per client address (a digest), in a window of
-- an hour: past TIMBRA_AUTOFACTURA_LIMIT_PER_HOUR the address is refused until the hour ends.
CREATE TABLE autofactura_fallos (
    ip_digest TEXT PRIMARY KEY,
    fallos INTEGER NOT NULL,
    desde TEXT NOT NULL
);
