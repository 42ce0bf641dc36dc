-- The installation's operators: the accounts that may add stamps to any company's balance
-- (`POST /api/timbres/recargas`). Stamps are bought from the PAC by whoever runs the
-- installation, so a company's own PROPIETARIO cannot add them: on a shared installation every
-- sign-up would spend the operator's stamps (issue 28, finding 5). Given on the server's own
-- command line: `timbra operadores agregar <email>`.
CREATE TABLE operadores (
    user_id TEXT PRIMARY KEY REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
