//! The error envelope and the one table that maps every error code to its HTTP status.
//!
//! Codes are stable strings that clients match on: never rename one. Codes from SPEC.md keep
//! their statuses; the codes DESIGN.md adds follow the same `AREA_NNN` style.

use http::StatusCode;
use serde_json::{Value, json};

use timbra_store::DbError;

/// Declares the code table once: the enum, its string and its status come from one line each.
macro_rules! error_codes {
    ($( $variant:ident = $code:literal, $status:ident, $doc:literal; )*) => {
        /// Every error code the API can answer with.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Code { $( #[doc = $doc] $variant, )* }

        impl Code {
            /// All codes, in table order (the docs endpoints list them).
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable string clients match on.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// The HTTP status this code is always answered with.
            pub fn status(self) -> StatusCode {
                match self { $(Code::$variant => StatusCode::$status,)* }
            }

            /// What the condition means, for the documentation.
            pub fn description(self) -> &'static str {
                match self { $(Code::$variant => $doc,)* }
            }
        }
    };
}

error_codes! {
    Auth001 = "AUTH_001", UNAUTHORIZED, "missing, invalid, expired or revoked API key or session";
    Auth002 = "AUTH_002", UNAUTHORIZED, "the key is valid but its user deleted the account";
    Auth003 = "AUTH_003", FORBIDDEN, "the caller's role in the company does not allow the action";
    Auth004 = "AUTH_004", UNAUTHORIZED, "wrong email or password";
    Auth005 = "AUTH_005", FORBIDDEN, "the action needs a session and the password (account deletion); an API key cannot do it";
    User001 = "USER_001", BAD_REQUEST, "invalid registration data (see details)";
    User002 = "USER_002", CONFLICT, "an account with this email already exists";
    Request001 = "REQUEST_001", BAD_REQUEST, "malformed JSON, wrong field type or missing Content-Type";
    Request002 = "REQUEST_002", PAYLOAD_TOO_LARGE, "request body too large";
    NotFound = "NOT_FOUND", NOT_FOUND, "no such route or resource";
    MethodNotAllowed = "METHOD_NOT_ALLOWED", METHOD_NOT_ALLOWED, "the route exists but not with this method";
    Empresa001 = "EMPRESA_001", BAD_REQUEST, "invalid company data (rfc, razonSocial, regimenFiscal, codigoPostal required)";
    Empresa002 = "EMPRESA_002", CONFLICT, "you already have a company with this RFC";
    Empresa003 = "EMPRESA_003", BAD_REQUEST, "the x-empresa-id header is missing";
    Empresa004 = "EMPRESA_004", CONFLICT, "the change would leave the company without a PROPIETARIO";
    Member001 = "MEMBER_001", BAD_REQUEST, "invalid member data (email of a registered user and a role)";
    Member002 = "MEMBER_002", CONFLICT, "the user is already a member of the company";
    Cliente001 = "CLIENTE_001", BAD_REQUEST, "invalid customer data (see details)";
    Cliente002 = "CLIENTE_002", CONFLICT, "a customer with this RFC already exists in the company";
    Correo001 = "CORREO_001", PRECONDITION_FAILED, "e-mail is not configured on this installation (TIMBRA_SMTP_URL and TIMBRA_SMTP_FROM)";
    Correo002 = "CORREO_002", BAD_REQUEST, "an e-mail address is invalid (details.campo and details.direccion name it), or a name or subject holds a line break";
    Correo003 = "CORREO_003", BAD_REQUEST, "the CFDI has no address to send it to: its customer (a payroll receipt: its employee) has no email; send para";
    Producto001 = "PRODUCTO_001", BAD_REQUEST, "invalid product data (see details)";
    ApiKey001 = "APIKEY_001", BAD_REQUEST, "invalid API key data (see details)";
    ApiKey002 = "APIKEY_002", FORBIDDEN, "a key cannot create a key wider than itself";
    Csd001 = "CSD_001", BAD_REQUEST, "cerBase64, keyBase64 or password missing";
    Csd002 = "CSD_002", BAD_REQUEST, ".cer and .key do not match, or wrong password";
    Csd003 = "CSD_003", BAD_REQUEST, "CSD expired";
    Csd004 = "CSD_004", BAD_REQUEST, "the certificate belongs to another RFC";
    Fiel001 = "FIEL_001", BAD_REQUEST, "cerBase64, keyBase64 or password missing";
    Fiel002 = "FIEL_002", BAD_REQUEST, ".cer and .key do not match, or wrong password";
    Fiel003 = "FIEL_003", BAD_REQUEST, "FIEL expired";
    Fiel004 = "FIEL_004", BAD_REQUEST, "FIEL RFC differs from the company RFC (on upload)";
    Fiel999 = "FIEL_999", INTERNAL_SERVER_ERROR, "internal error processing the FIEL";
    MissingFiel = "MISSING_FIEL", PRECONDITION_FAILED, "company has no FIEL";
    FielExpired = "FIEL_EXPIRED", PRECONDITION_FAILED, "FIEL expired";
    FielRfcMismatch = "FIEL_RFC_MISMATCH", BAD_REQUEST, "FIEL RFC differs from the company RFC";
    FielDecrypt = "FIEL_DECRYPT", INTERNAL_SERVER_ERROR, "stored FIEL cannot be decrypted; upload it again";
    Descarga001 = "DESCARGA_001", BAD_REQUEST, "request body is not valid JSON";
    Descarga002 = "DESCARGA_002", BAD_REQUEST, "invalid data; uuid missing or not a string";
    Descarga003 = "DESCARGA_003", BAD_REQUEST, "jobId missing in the path";
    Descarga004 = "DESCARGA_004", NOT_FOUND, "job does not exist or belongs to another company";
    InvalidUuid = "INVALID_UUID", BAD_REQUEST, "UUID format invalid";
    UuidNotFound = "UUID_NOT_FOUND", NOT_FOUND, "invoice not found at the tax authority (must be a received one)";
    ReceptorMismatch = "RECEPTOR_MISMATCH", FORBIDDEN, "invoice's recipient is another RFC";
    CfdiNotFound = "CFDI_NOT_FOUND", OK, "tax authority did not find the invoice";
    VerificaTimeout = "VERIFICA_TIMEOUT", OK, "tax authority did not finish the request within 5 minutes";
    EmptyPackage = "EMPTY_PACKAGE", OK, "tax authority package came empty";
    ParseError = "PARSE_ERROR", OK, "XML downloaded but could not be parsed";
    Paquete001 = "PAQUETE_001", BAD_GATEWAY, "a package SAT delivered went over a limit while it was decompressed (entries, bytes per entry or package, compression ratio: the message names the limit and its TIMBRA_SAT_PACKAGE_MAX_* variable); nothing of it was stored";
    Sat5002 = "SAT_5002", OK, "permitted requests exhausted (tax-authority rate limit)";
    Sat5004 = "SAT_5004", OK, "no information found (UUID absent, or caller is not the recipient)";
    Sat5005 = "SAT_5005", OK, "identical request already in process; reuse the earlier job";
    SatEstado4 = "SAT_ESTADO_4", OK, "request rejected (error); message in satMensaje";
    SatEstado5 = "SAT_ESTADO_5", OK, "request rejected; message in satMensaje";
    SatEstado6 = "SAT_ESTADO_6", OK, "request expired";
    SatRejected = "SAT_REJECTED", OK, "SAT refused the request with another CodEstatus (details.satCodEstatus and satMensaje: 301 malformed, 5001 not authorised, 5003 too many CFDI, 5006 SAT's internal error, 5007 package expired, 5008 package downloaded twice, 404)";
    SatAuth = "SAT_AUTH", BAD_GATEWAY, "SAT refused the FIEL-signed authentication (details.satMensaje)";
    SatUnavailable = "SAT_UNAVAILABLE", BAD_GATEWAY, "SAT could not be reached or gave no usable answer (timeout, HTTP error, SOAP fault); retry later";
    Sync001 = "SYNC_001", BAD_REQUEST, "invalid sync data: year and month (1 to 12) of a month that has started, within SAT's last six years";
    Sync002 = "SYNC_002", CONFLICT, "a synchronization is already running for this company (details.jobId)";
    SatQuota = "SAT_QUOTA", TOO_MANY_REQUESTS, "daily download quota reached; see quota headers and Retry-After";
    Rate001 = "RATE_001", TOO_MANY_REQUESTS, "rate limit exceeded; see Retry-After";
    Scope001 = "SCOPE_001", FORBIDDEN, "the caller has no access to the company";
    Scope002 = "SCOPE_002", FORBIDDEN, "the API key's scopes do not include the action";
    Cfdi001 = "CFDI_001", BAD_REQUEST, "invalid invoice data (see details)";
    Cfdi002 = "CFDI_002", BAD_REQUEST, "company has no CSD";
    Cfdi003 = "CFDI_003", BAD_REQUEST, "CSD expired";
    Cfdi004 = "CFDI_004", NOT_FOUND, "customer not found";
    Cfdi005 = "CFDI_005", BAD_REQUEST, "the XML to validate is not UTF-8, not well-formed, or carries a DOCTYPE";
    Quota001 = "QUOTA_001", PAYMENT_REQUIRED, "no stamps left";
    Timbre001 = "TIMBRE_001", PAYMENT_REQUIRED, "insufficient stamp balance (payroll stamping)";
    Pago001 = "PAGO_001", BAD_REQUEST, "invalid payment data (see details)";
    Pago002 = "PAGO_002", NOT_FOUND, "original invoice UUID not found";
    Pago003 = "PAGO_003", BAD_REQUEST, "original invoice is cancelled";
    Pago004 = "PAGO_004", BAD_REQUEST, "impSaldoAnt - impPagado differs from impSaldoInsoluto";
    Pago005 = "PAGO_005", CONFLICT, "impSaldoAnt or numParcialidad is not the invoice's stored balance and next installment (the message says both)";
    Cancel001 = "CANCEL_001", BAD_REQUEST, "invalid cancellation data: motivo 01–04, folioSustitucion the UUID of a stamped invoice of the company and only with motivo 01";
    Cancel002 = "CANCEL_002", NOT_FOUND, "invoice not found";
    Cancel003 = "CANCEL_003", BAD_REQUEST, "status does not allow cancellation; only TIMBRADO can be cancelled";
    Cancel004 = "CANCEL_004", BAD_REQUEST, "motivo 01 requires folioSustitucion";
    Cancelacion001 = "CANCELACION_001", NOT_FOUND, "no cancellation request waits for this company's answer for this UUID (never requested, withdrawn, or its three business days passed)";
    Cancelacion002 = "CANCELACION_002", CONFLICT, "this cancellation request was already answered (details.respuesta, details.respondidaEn)";
    Cancelacion003 = "CANCELACION_003", BAD_REQUEST, "respuesta must be \"aceptar\" or \"rechazar\"";
    SatConsulta001 = "SAT_CONSULTA_001", SERVICE_UNAVAILABLE, "SAT's status service (ConsultaCFDIService) could not be reached or gave no usable answer; nothing was changed, retry after Retry-After seconds";
    SatConsulta002 = "SAT_CONSULTA_002", BAD_GATEWAY, "SAT refused the status query (N - 601: the expresión impresa is not valid; details.codigoEstatus quotes SAT); nothing was changed: check the CFDI's RFCs and total";
    Nomina001 = "NOMINA_001", BAD_REQUEST, "invalid payroll data (see details)";
    Nomina002 = "NOMINA_002", BAD_REQUEST, "company lacks employer registration";
    Nomina999 = "NOMINA_999", INTERNAL_SERVER_ERROR, "internal error in the stamping pipeline";
    Nomina011 = "NOMINA_011", CONFLICT, "the period is not calculated (ABIERTO): calculate it before stamping";
    Nomina012 = "NOMINA_012", BAD_REQUEST, "the receipt is not stamped (or is already cancelled) and cannot be cancelled";
    Empleado002 = "EMPLEADO_002", CONFLICT, "employee with this RFC already exists in the company";
    Empleado001 = "EMPLEADO_001", BAD_REQUEST, "invalid employee data: SAT's RFC, CURP and NSS formats and check digits, required fields (see details)";
    Incidencia001 = "INCIDENCIA_001", BAD_REQUEST, "invalid incidence data: tipo, empleadoId of an active employee, fecha and the fields of its kind (see details)";
    Incidencia002 = "INCIDENCIA_002", CONFLICT, "the incidence was already approved or rejected; only a PENDIENTE incidence can be decided";
    Nomina003 = "NOMINA_003", CONFLICT, "the period has stamped receipts (or is stamped) and cannot be recalculated";
    Nomina004 = "NOMINA_004", CONFLICT, "another period of the same periodicidad covers some of these dates";
    Nomina036 = "NOMINA_036", BAD_REQUEST, "no stamped payroll receipt is paid in the ejercicio: the annual adjustment reads the stamped receipts";
    Nomina035 = "NOMINA_035", CONFLICT, "already paid: the year's aguinaldo to every employee (a second AGUINALDO period pays only the difference after a raise), or the ejercicio's PTU; details.periodoId names the earlier period";
    Idempotency001 = "IDEMPOTENCY_001", CONFLICT, "Idempotency-Key reused with another body, or on another operation or invoice (details.route, details.cfdiId)";
    Idempotency002 = "IDEMPOTENCY_002", CONFLICT, "a request with this Idempotency-Key is still in progress";
    Webhook001 = "WEBHOOK_001", BAD_REQUEST, "invalid webhook data: url (public http/https), events (known types) or description (see details)";
    Job001 = "JOB_001", BAD_REQUEST, "invalid job listing filter (status: queued, running, done or dead)";
    Internal = "INTERNAL", INTERNAL_SERVER_ERROR, "internal error; it was logged, retry later";
    Csd005 = "CSD_005", BAD_REQUEST, "the certificate is not a CSD (e.g. a FIEL sent as CSD)";
    Fiel005 = "FIEL_005", BAD_REQUEST, "the certificate is not a FIEL (e.g. a CSD sent as FIEL)";
    Logo001 = "LOGO_001", BAD_REQUEST, "the logo is not a PNG or JPEG image that can be read, or it is over 1 MB";
    Live001 = "LIVE_001", NOT_IMPLEMENTED, "live stamping is not configured on this installation (TIMBRA_PAC_URL)";
    Pac001 = "PAC_001", BAD_GATEWAY, "the PAC rejected the invoice (its code in details.pacCode); the folio is recorded as a failed attempt";
    Pac002 = "PAC_002", BAD_GATEWAY, "no usable answer from the PAC (timeout, dropped connection, 5xx, SOAP Fault, garbage): the outcome is unknown; a stamp is reconciled, send the same request again (details.intentoId, serie, folio)";
    Download001 = "DOWNLOAD_001", FORBIDDEN, "the signed download link is altered or expired";
    Timbres001 = "TIMBRES_001", BAD_REQUEST, "invalid stamp top-up (cantidad 1 to 10,000,000)";
    Busy001 = "BUSY_001", SERVICE_UNAVAILABLE, "the database is busy with other writes; the transaction was rolled back, retry after Retry-After seconds";
    Unavailable001 = "UNAVAILABLE_001", SERVICE_UNAVAILABLE, "the database cannot be reached right now; nothing was written, retry after Retry-After seconds";
    Busy002 = "BUSY_002", SERVICE_UNAVAILABLE, "too many open connections, from this address (TIMBRA_MAX_CONNECTIONS_PER_IP) or in all (TIMBRA_MAX_CONNECTIONS); the connection was closed unread, retry after Retry-After seconds";
    Recibo001 = "RECIBO_001", BAD_REQUEST, "invalid ticket or global invoice data: every problem in details.fields (amounts greater than 0, at least one line, tipoCambio for a currency other than MXN, a folio not used before, periodicidad/meses/año of SAT's catalogs)";
    Recibo002 = "RECIBO_002", BAD_REQUEST, "nothing to include: no ABIERTO ticket in the global invoice's range";
    Recibo003 = "RECIBO_003", CONFLICT, "the ticket's status does not allow it (only an ABIERTO ticket is cancelled or invoiced), or its tickets changed meanwhile (another global invoice or a self-invoice took them): nothing was stamped";
    Recibo004 = "RECIBO_004", NOT_FOUND, "no ticket with this code on this company's self-invoicing page (or the page does not exist or is off)";
    Recibo005 = "RECIBO_005", CONFLICT, "the ticket was already invoiced to a customer";
    Recibo006 = "RECIBO_006", CONFLICT, "the ticket is included in a global invoice and cannot be invoiced to a customer";
    Recibo007 = "RECIBO_007", GONE, "the ticket's self-invoicing code expired (autofactura.diasVigencia, or the end of the ticket's month)";
    Retencion001 = "RETENCION_001", BAD_REQUEST, "invalid retention data: every problem in details.problemas with SAT's rule id (catRetenciones codes, CveRetenc 25 needs DescRetenc, totals that add up, a period within one year, a foreign receiver without RFC)";
    Mcp001 = "MCP_001", FORBIDDEN, "the request's Origin may not use /mcp: allowed are the service's own origin (TIMBRA_PUBLIC_URL or TIMBRA_LISTEN), requests without Origin, and those in TIMBRA_MCP_ORIGINS";
    Storage001 = "STORAGE_001", SERVICE_UNAVAILABLE, "the file storage (folder or S3 bucket) cannot be reached; nothing was lost, retry after Retry-After seconds";
    Zip001 = "ZIP_001", BAD_REQUEST, "invalid ZIP export request: desde and hasta are dates (AAAA-MM-DD or ISO 8601 with offset) with desde not after hasta; tipo EMITIDA or RECIBIDA, tipoComprobante I, E, T, P or N, status TIMBRADO, TIMBRADO_SANDBOX or CANCELADO; details.campo names the field";
}

/// An error answered to the client in the envelope.
#[derive(Clone, Debug)]
pub struct ApiError {
    /// The stable code.
    pub code: Code,
    /// What went wrong and what to fix, for a person.
    pub message: String,
    /// Which fields and why, for a program.
    pub details: Value,
    /// Seconds for a `Retry-After` header (429 answers).
    pub retry_after: Option<u64>,
}

/// Result type of handlers and services.
pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// An error with a message and empty details.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), details: json!({}), retry_after: None }
    }

    /// Adds details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// A validation error listing every problem as `details.fields[{field, message}]`.
    pub fn fields(code: Code, problems: Vec<FieldProblem>) -> Self {
        let message = match problems.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!(
                "{} fields are invalid: {}",
                many.len(),
                many.iter().map(|p| p.field.as_str()).collect::<Vec<_>>().join(", ")
            ),
        };
        Self::new(code, message).with_details(json!({ "fields": problems }))
    }

    /// A validation error whose problems carry rule ids: `details.fields[{field, message}]` as
    /// [`Self::fields`] and `details.problemas[{regla, campo, mensaje}]`, the same problems with
    /// their rule (`CP31_FECHAS_ORDEN`, `CCE20_TOTAL_USD`, SAT's `CFDI40…` codes or `TIMBRA_…`;
    /// `ENTRADA` for a body that does not have the shape the field needs).
    pub fn reglas(code: Code, problems: Vec<FieldProblem>) -> Self {
        let problemas: Vec<Value> = problems
            .iter()
            .map(|p| json!({ "regla": p.regla.as_deref().unwrap_or(REGLA_ENTRADA), "campo": p.field, "mensaje": p.message }))
            .collect();
        let mut error = Self::fields(code, problems);
        if let Some(details) = error.details.as_object_mut() {
            details.insert("problemas".into(), Value::Array(problemas));
        }
        error
    }

    /// The field problems of a validation error (`details.fields`, as [`Self::fields`] writes
    /// them); none for another error.
    pub fn field_problems(&self) -> Vec<FieldProblem> {
        let texto = |p: &Value, k: &str| p.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        self.details
            .get("fields")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|p| FieldProblem::new(texto(p, "field"), texto(p, "message")))
            .collect()
    }

    /// The problems with their rule ids of an error built by [`Self::reglas`]
    /// (`details.problemas`); `None` for another error.
    pub fn problemas(&self) -> Option<Vec<FieldProblem>> {
        let texto = |p: &Value, k: &str| p.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        let problemas = self.details.get("problemas")?.as_array()?;
        Some(
            problemas
                .iter()
                .map(|p| FieldProblem::new(texto(p, "campo"), texto(p, "mensaje")).con_regla(texto(p, "regla")))
                .collect(),
        )
    }

    /// A 404 that reveals nothing about whether the id exists elsewhere.
    pub fn not_found(what: &str) -> Self {
        Self::new(Code::NotFound, format!("{what} not found"))
    }

    /// An unexpected failure: logged once here with context, answered generically.
    pub fn internal(context: &str, error: impl std::fmt::Display) -> Self {
        tracing::error!(error.context = context, error.message = %error, "internal error");
        Self::new(Code::Internal, "internal error; it was logged, retry later")
    }
}

/// The rule id [`ApiError::reglas`] gives a problem of the body's shape (a missing field, a
/// wrong type, an unknown member), which no SAT rule names.
pub const REGLA_ENTRADA: &str = "ENTRADA";

/// One invalid field: its JSON path and what to fix.
#[derive(Clone, Debug, serde::Serialize, PartialEq, Eq)]
pub struct FieldProblem {
    /// JSON path of the field, e.g. `conceptos[0].cantidad`.
    pub field: String,
    /// What is wrong and how to fix it.
    pub message: String,
    /// The rule broken (`CP31_FECHAS_ORDEN`), when one is; listed by [`ApiError::reglas`].
    #[serde(skip)]
    pub regla: Option<String>,
}

impl FieldProblem {
    /// Builds a problem.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { field: field.into(), message: message.into(), regla: None }
    }

    /// The same problem naming the rule it breaks.
    pub fn con_regla(mut self, regla: impl Into<String>) -> Self {
        self.regla = Some(regla.into());
        self
    }
}

impl From<DbError> for ApiError {
    /// The storage layer's kinds to the code table: unreachable is UNAVAILABLE_001, busy is
    /// BUSY_001 (both 503s the client may retry: the transaction rolled back); a duplicate the
    /// caller did not turn into its own 409, and anything else, is logged as a 500.
    fn from(error: DbError) -> Self {
        match error {
            DbError::Unavailable(error) => {
                tracing::warn!(error.message = %error, "database unreachable; answered 503");
                let mut answer = Self::new(
                    Code::Unavailable001,
                    "the database cannot be reached right now; nothing was written, retry in a few seconds",
                );
                answer.retry_after = Some(2);
                answer
            }
            DbError::Busy(error) => {
                tracing::warn!(error.message = %error, "database busy; answered 503");
                let mut answer = Self::new(Code::Busy001, "the database is busy with other writes; retry in a second");
                answer.retry_after = Some(1);
                answer
            }
            DbError::Duplicate(error) | DbError::Other(error) => Self::internal("database", error),
        }
    }
}

impl From<sqlx::Error> for ApiError {
    /// A driver error met outside the storage layer (a commit in a service): classified by
    /// [`DbError`] like any other.
    fn from(error: sqlx::Error) -> Self {
        DbError::from(error).into()
    }
}

impl ApiError {
    /// A file storage failure, mapped here once: a missing file is NOT_FOUND (`what`), anything
    /// else (the bucket or folder unreachable) a 503 STORAGE_001 the client may retry.
    pub fn storage(error: std::io::Error, what: &str) -> Self {
        if error.kind() == std::io::ErrorKind::NotFound {
            return Self::not_found(what);
        }
        tracing::warn!(error.message = %error, "file storage unreachable; answered 503");
        let mut answer = Self::new(
            Code::Storage001,
            format!("the file storage cannot be reached right now ({what}); retry in a few seconds"),
        );
        answer.retry_after = Some(5);
        answer
    }

    /// A PAC failure, mapped here once: a refusal is PAC_001, anything else (no answer, a
    /// transport error, garbage) PAC_002, with the PAC's own code in `details.pacCode`.
    /// `consequence` tells the client what became of its request.
    pub fn pac(error: &timbra_pac::PacError, consequence: &str) -> Self {
        let code = match error {
            timbra_pac::PacError::Rejected { .. } => Code::Pac001,
            _ => Code::Pac002,
        };
        // In English and without the PAC's raw answer (never SOAP): the log line of the call
        // (`cfdi::pac_log`) has the rest.
        let summary = pac_summary(error);
        Self::new(code, format!("{summary}; {consequence}")).with_details(json!({ "pacCode": error.code() }))
    }
}

impl ApiError {
    /// A descarga masiva failure, mapped here once from [`timbra_sat::SatError::codigo`]:
    /// SPEC.md's codes, SAT_REJECTED for the other `CodEstatus` (SAT's own code and text in
    /// `details.satCodEstatus` and `details.satMensaje`), SAT_AUTH, SAT_UNAVAILABLE.
    pub fn sat(error: &timbra_sat::SatError) -> Self {
        use timbra_sat::SatError;
        let codigo = error.codigo();
        let code = Code::ALL.iter().copied().find(|code| code.as_str() == codigo).unwrap_or(match error {
            SatError::Autenticacion { .. } => Code::SatAuth,
            SatError::CodEstatus { .. } | SatError::Solicitud { .. } => Code::SatRejected,
            _ => Code::SatUnavailable,
        });
        let (cod_estatus, mensaje) = match error {
            SatError::CodEstatus { cod_estatus, mensaje } => (Some(cod_estatus.clone()), Some(mensaje.clone())),
            SatError::Solicitud { codigo_estado, mensaje, .. } => (Some(codigo_estado.clone()), Some(mensaje.clone())),
            SatError::Autenticacion { mensaje, .. } | SatError::Fault { mensaje, .. } => (None, Some(mensaje.clone())),
            _ => (None, None),
        };
        let message = match code {
            Code::FielExpired => {
                "the FIEL is no longer valid: upload a current one at POST /api/empresas/{empresaId}/fiel".to_owned()
            }
            Code::FielRfcMismatch => {
                "SAT says the FIEL does not belong to the requesting RFC: upload the company's own FIEL".to_owned()
            }
            Code::Fiel005 => "SAT refused the certificate: upload the e.firma (FIEL), not a CSD".to_owned(),
            Code::Sat5002 => "SAT allows this same request only twice: change the period or wait".to_owned(),
            Code::Sat5004 => {
                "SAT found no information: the UUID does not exist or this company is not its receiver".to_owned()
            }
            Code::Sat5005 => "SAT is already processing an identical request: wait for it".to_owned(),
            Code::VerificaTimeout => {
                "SAT did not finish the request in time; it may finish later: try again later".to_owned()
            }
            Code::EmptyPackage => "SAT delivered an empty package; try again later".to_owned(),
            Code::Paquete001 => match error {
                SatError::PaqueteExcedido { limite, maximo, entrada } => paquete_excedido(*limite, *maximo, entrada),
                _ => format!("SAT answered {codigo}"),
            },
            Code::SatUnavailable | Code::SatAuth => format!("SAT did not answer usably ({codigo}); retry later"),
            _ => format!("SAT answered {codigo}"),
        };
        tracing::info!(sat.error = %error, sat.codigo = %codigo, "sat call failed");
        let mut details = serde_json::Map::new();
        if let Some(cod_estatus) = cod_estatus {
            details.insert("satCodEstatus".into(), json!(cod_estatus));
        }
        if let Some(mensaje) = mensaje {
            details.insert("satMensaje".into(), json!(mensaje));
        }
        Self::new(code, message).with_details(Value::Object(details))
    }
}

/// The message of PAQUETE_001: which limit, its value and the variable that sets it.
fn paquete_excedido(limite: timbra_sat::LimitePaquete, maximo: u64, entrada: &Option<String>) -> String {
    use timbra_sat::LimitePaquete;
    let variable = crate::config::variable_limite_paquete(limite);
    // The entry's name is the package author's text: quoted and escaped, never raw.
    let en = entrada.as_ref().map(|nombre| format!(" (entry {nombre:?})")).unwrap_or_default();
    let limite = match limite {
        LimitePaquete::Entradas => format!("it has more than {maximo} entries"),
        LimitePaquete::BytesEntrada => format!("an entry{en} decompresses to more than {maximo} bytes"),
        LimitePaquete::BytesPaquete => format!("its entries decompress to more than {maximo} bytes in all{en}"),
        LimitePaquete::Proporcion => {
            format!("it decompresses to more than {maximo} times its compressed size{en} (a ZIP bomb)")
        }
    };
    format!(
        "SAT's package was refused: {limite}, over {variable}; nothing of it was stored. Raise {variable} if SAT's \
         packages are really this large, and synchronize again"
    )
}

impl ApiError {
    /// The error envelope: `{ success: false, error: { code, message, details } }`.
    pub fn body(&self) -> Value {
        json!({
            "success": false,
            "error": { "code": self.code.as_str(), "message": self.message, "details": self.details },
        })
    }
}

/// A one-line English summary of a PAC failure with no part of the PAC's answer except a
/// rejection's own message (SAT's or the PAC's text): safe for logs and for clients.
pub fn pac_summary(error: &timbra_pac::PacError) -> String {
    match error {
        timbra_pac::PacError::Rejected { code, message } => format!("the PAC refused the request ({code}): {message}"),
        timbra_pac::PacError::Timeout(limit) => format!("the PAC did not answer within {} s", limit.as_secs()),
        timbra_pac::PacError::Transport(detail) => {
            // "HTTP 502 Bad Gateway en stamp: <body…>": keep the status, never the body.
            match detail.strip_prefix("HTTP ").and_then(|rest| rest.split(" en ").next()) {
                Some(status) => format!("the PAC answered HTTP {status}"),
                None => "the PAC could not be reached".to_owned(),
            }
        }
        // A fault's string is the PAC's own text, short and without markup.
        timbra_pac::PacError::Fault { code, message } => format!("the PAC answered a SOAP Fault ({code}): {message}"),
        timbra_pac::PacError::Garbage { .. } => {
            "the PAC answered something that is not a SOAP message of its protocol".to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_unique_string_and_its_status() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            assert!(seen.insert(code.as_str()), "{} twice", code.as_str());
        }
        assert_eq!(Code::Fiel999.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(Code::MissingFiel.status(), StatusCode::PRECONDITION_FAILED);
        assert_eq!(Code::Quota001.status(), StatusCode::PAYMENT_REQUIRED);
        assert_eq!(Code::CfdiNotFound.status(), StatusCode::OK);
    }

    #[test]
    fn a_busy_database_is_a_503_to_retry_not_a_500() {
        let busy = ApiError::from(sqlx::Error::PoolTimedOut);
        assert_eq!((busy.code, busy.retry_after), (Code::Busy001, Some(1)));
        assert_eq!(busy.code.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(ApiError::from(sqlx::Error::RowNotFound).code, Code::Internal);
    }

    #[test]
    fn the_storage_layer_classifies_once_and_the_table_maps_each_kind() {
        use timbra_store::DbError;
        let down = DbError::from(sqlx::Error::PoolClosed);
        assert!(matches!(down, DbError::Unavailable(_)));
        let down = ApiError::from(down);
        assert_eq!((down.code, down.retry_after), (Code::Unavailable001, Some(2)));
        assert!(matches!(DbError::from(sqlx::Error::PoolTimedOut), DbError::Busy(_)));
        let other = DbError::from(sqlx::Error::RowNotFound);
        assert!(!other.is_duplicate());
        assert_eq!(ApiError::from(other).code, Code::Internal);
    }
}
