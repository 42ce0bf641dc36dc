-- Branded PDFs (issue 32): the company's logo (PNG re-encoded by the service, never the bytes
-- uploaded), primary color and footer note, and a version bumped by every change; a stored
-- PDF remembers the version it was rendered with and is rendered again when it is older.
ALTER TABLE empresas ADD COLUMN logo_png BYTEA;
ALTER TABLE empresas ADD COLUMN pdf_color_primario TEXT;
ALTER TABLE empresas ADD COLUMN pdf_nota_pie TEXT;
ALTER TABLE empresas ADD COLUMN marca_version BIGINT NOT NULL DEFAULT 0;
-- The stamp body's `notas`: printed on the PDF, not part of the XML.
ALTER TABLE cfdis ADD COLUMN notas TEXT;
CREATE TABLE pdf_marcas (
    path TEXT PRIMARY KEY,
    marca_version BIGINT NOT NULL
);
