-- The files of each edition an operator imported (`timbra catalogos importar`), as one deflated
-- data file (timbra-catalogos' format): every instance reads the newest at start and holds it in
-- memory for validation and the forms' searches, exactly as it holds the shipped edition.
CREATE TABLE catalogo_paquetes (
    edicion TEXT PRIMARY KEY,          -- YYYY-MM-DD, SAT's publication
    datos BLOB NOT NULL,
    created_at TEXT NOT NULL
);
