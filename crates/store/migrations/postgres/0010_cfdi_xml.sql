-- The stamped XML, deflated, committed with its invoice row (cfdi/xml_db.rs): no invoice
-- without its XML, no XML without its invoice. `path` is the name the invoice shows as xmlUrl.
CREATE TABLE cfdi_xml (
    cfdi_id TEXT PRIMARY KEY REFERENCES cfdis (id),
    empresa_id TEXT NOT NULL,
    path TEXT NOT NULL,
    xml_deflate BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX cfdi_xml_path ON cfdi_xml (path);
