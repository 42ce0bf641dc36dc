-- SAT's catalogs (issue 29). Each catalog's loaded edition; the three large catalogs in tables of
-- their own, searched by the forms and read into validation's in-memory index; every other
-- catalog's rows in one table. A catalog's id is SAT's folder and file name (`cfdi40/c_Moneda`):
-- CFDI 4.0 and Nómina 1.2 both publish a c_Estado. `huella` is a fingerprint of a row's values,
-- so a new edition's diff reads no old text. Dates are YYYY-MM-DD; NULL is open-ended. Codes
-- compare bytewise (COLLATE "C"), so a code prefix is a range of the primary key.
CREATE TABLE catalogo_ediciones (
    catalogo TEXT PRIMARY KEY,
    edicion TEXT NOT NULL,             -- the date SAT published the edition loaded
    filas BIGINT NOT NULL,
    loaded_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
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
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (catalogo, clave)
);

CREATE TABLE claves_prod_serv (
    clave TEXT COLLATE "C" PRIMARY KEY,
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
    created_at TIMESTAMPTZ NOT NULL,
    -- Word-prefix search: the description's words weigh A, the similar words B. The texts are
    -- folded already, so the 'simple' configuration (no stemming, no stop words) is enough.
    search_tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', search_text), 'A') || setweight(to_tsvector('simple', search_similares), 'B')
    ) STORED
);
-- Loading an edition empties its pending list (catalogos::cargar): left there, 52,000 rows are
-- scanned by every search (15 ms) until a vacuum.
CREATE INDEX claves_prod_serv_search ON claves_prod_serv USING gin (search_tsv);

CREATE TABLE claves_unidad (
    clave TEXT COLLATE "C" PRIMARY KEY,
    nombre TEXT NOT NULL,
    descripcion TEXT NOT NULL,
    notas TEXT NOT NULL,
    simbolo TEXT NOT NULL,
    vigencia_desde TEXT,
    vigencia_hasta TEXT,
    search_text TEXT NOT NULL,         -- clave, nombre and simbolo folded
    huella TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE codigos_postales (
    codigo_postal TEXT COLLATE "C" PRIMARY KEY,
    estado TEXT NOT NULL,
    municipio TEXT NOT NULL,
    localidad TEXT NOT NULL,
    estimulo_frontera BIGINT NOT NULL, -- 0 none, 1 northern border, 2 southern border
    huso_horario TEXT NOT NULL,        -- SAT's description, `Tiempo del Centro`
    vigencia_desde TEXT,
    vigencia_hasta TEXT,
    huella TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
