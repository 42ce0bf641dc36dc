-- SAT's catalogs (issue 29). Each catalog's loaded edition; the three large catalogs in tables of
-- their own, searched by the forms and read into validation's in-memory index; every other
-- catalog's rows in one table. A catalog's id is SAT's folder and file name (`cfdi40/c_Moneda`):
-- CFDI 4.0 and Nómina 1.2 both publish a c_Estado. `huella` is a fingerprint of a row's values,
-- so a new edition's diff reads no old text. Dates are YYYY-MM-DD; NULL is open-ended.
CREATE TABLE catalogo_ediciones (
    catalogo TEXT PRIMARY KEY,
    edicion TEXT NOT NULL,             -- the date SAT published the edition loaded
    filas BIGINT NOT NULL,
    loaded_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE catalogo_filas (
    catalogo TEXT NOT NULL,
    clave TEXT NOT NULL,               -- the first column, or the key columns joined with |
    orden BIGINT NOT NULL,             -- SAT's order
    descripcion TEXT NOT NULL,
    vigencia_desde TEXT,
    vigencia_hasta TEXT,
    columnas TEXT NOT NULL,            -- every column of SAT's file, a JSON object
    huella TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (catalogo, clave)
);

CREATE TABLE claves_prod_serv (
    id INTEGER PRIMARY KEY,            -- the full-text index's rowid
    clave TEXT NOT NULL UNIQUE,
    descripcion TEXT NOT NULL,
    incluir_iva TEXT NOT NULL,         -- No, Sí, Opcional
    incluir_ieps TEXT NOT NULL,
    complemento TEXT NOT NULL,
    vigencia_desde TEXT,
    vigencia_hasta TEXT,
    estimulo_franja_fronteriza BOOLEAN NOT NULL,
    palabras_similares TEXT NOT NULL,
    search_text TEXT NOT NULL,         -- descripcion folded: lower case, no accents, words
    search_similares TEXT NOT NULL,    -- palabras_similares folded
    huella TEXT NOT NULL,
    created_at TEXT NOT NULL
);
-- Word-prefix search over the folded texts; rebuilt in the transaction that changes the rows.
CREATE VIRTUAL TABLE claves_prod_serv_fts USING fts5(
    search_text, search_similares,
    content = 'claves_prod_serv', content_rowid = 'id', tokenize = 'unicode61', prefix = '1 2 3'
);

CREATE TABLE claves_unidad (
    clave TEXT PRIMARY KEY,
    nombre TEXT NOT NULL,
    descripcion TEXT NOT NULL,
    notas TEXT NOT NULL,
    simbolo TEXT NOT NULL,
    vigencia_desde TEXT,
    vigencia_hasta TEXT,
    search_text TEXT NOT NULL,         -- clave, nombre and simbolo folded
    huella TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE codigos_postales (
    codigo_postal TEXT PRIMARY KEY,
    estado TEXT NOT NULL,
    municipio TEXT NOT NULL,
    localidad TEXT NOT NULL,
    estimulo_frontera BIGINT NOT NULL, -- 0 none, 1 northern border, 2 southern border
    huso_horario TEXT NOT NULL,        -- SAT's description, `Tiempo del Centro`
    vigencia_desde TEXT,
    vigencia_hasta TEXT,
    huella TEXT NOT NULL,
    created_at TEXT NOT NULL
);
