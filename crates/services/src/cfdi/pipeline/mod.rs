//! The stamping pipeline every CFDI type goes through, in named steps:
//!
//! 1. **prepare** (the caller): a typed, validated, unsealed [`Documento`] — `timbrado::preparar`
//!    for I, E and T; payments and payroll receipts plug in with their own builders.
//! 2. **credentials**: the CSD that seals and, in live mode, the PAC ([`credenciales`]).
//! 3. **reserve folio**, 4. **seal**, 5. **timbre**: sandbox ([`sandbox`]) predicts the folio,
//!    seals and adds the sandbox TFD outside the write transaction, and the process's writer
//!    ([`group_commit`]) takes the folio inside it; live (`cfdi::live`) is two-phase:
//!    *reserve* (stamp, folio, sealed attempt and Idempotency-Key committed) → *PAC call* →
//!    *persist*, or an unknown outcome is kept and reconciled.
//! 6. **persist**: the invoice row, its XML (compressed, `timbra_store::cfdi_xml`), its type's persist
//!    effects ([`Efectos::al_persistir`]: `factura.timbrada` by default) and the idempotent
//!    answer, in one transaction: a batch of sandbox stamps at a time
//!    ([`group_commit`]), one live stamp at a time ([`persistir`]).
//! 7. **answer**: the `201` body, the same one a replay of the Idempotency-Key gives.
//!
//! Handlers only parse, authorize, call [`timbrar`] and return what it gives.
//!
//! A document type that must change other rows with its stamp hands [`timbrar_con_efectos`]
//! its [`Efectos`], the one stamp-time write mechanism of every path: *aplicar* runs in the
//! transaction that takes the folio — the sandbox batch that writes the invoice, the live
//! *reserve* before the PAC is called — so an error there (a payment's balance moved
//! meanwhile) rolls the stamp back and nothing is spent; *al_persistir* writes the type's
//! records and event with the invoice row (a payroll receipt becomes TIMBRADO and emits
//! `nomina.recibo_timbrado` instead of `factura.timbrada`); *devolver* gives back what
//! *aplicar* held when the PAC refuses.
//!
//! A batch of documents of one company (a payroll period's receipts) stamps in sandbox through
//! [`sellar_en_orden`] with predicted folios, on the sealing threads, and
//! [`escribir_lote`], which takes the batch's folios in one statement, seals again any whose
//! prediction missed, and writes the invoice rows, their XML and their type's persist effects
//! ([`Efectos::al_persistir`]: the receipts, their events) in the caller's transaction.

pub mod registro;
pub mod sellado;

pub use super::documento::Documento;
pub(crate) use super::documento::Timbrado;
pub use registro::{
    Cabecera, Efectos, Escrito, Fila, Hecho, Peticion, Registro, Resumen, TimbradoOut, al_persistir, emitir_timbradas,
    respuesta_201,
};
pub(crate) use sellado::siguiente_folio;
pub use sellado::{
    SelladoEnOrden, SelladoLote, SellosEnOrden, Trabajo, escribir_lote, sellar_en_orden, sellar_sandbox,
    sellar_sandbox_ya, timbre_sandbox,
};

use std::sync::Arc;

use crate::idempotency::Answer;
use http::StatusCode;
use serde_json::json;
use timbra_cfdi::Comprobante;

use super::documento::PorSellar;
use super::{credenciales, group_commit, leer_fecha_expedicion};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::idempotency;
use timbra_store::cfdi_xml;
use timbra_store::ids::EmpresaId;
use timbra_store::{MultiInsert, Tx};

impl Fila {
    /// Reads the row's values from `c`; its `Fecha` is read in its LugarExpedicion's zone
    /// (c_CodigoPostal of `catalogos`).
    pub fn de(c: &Comprobante, catalogos: &dyn timbra_cfdi::catalogos::Catalogos) -> ApiResult<Self> {
        let decimal = |n: &timbra_cfdi::numero::Numero| n.valor().map_err(|e| ApiError::internal("amount", e));
        let numero = |n: &timbra_cfdi::numero::Numero| {
            serde_json::from_str(n.texto()).unwrap_or_else(|_| serde_json::Value::String(n.texto().to_owned()))
        };
        let conceptos: Vec<serde_json::Value> = c
            .conceptos
            .iter()
            .map(|concepto| {
                json!({
                    "claveProdServ": concepto.clave_prod_serv, "claveUnidad": concepto.clave_unidad,
                    "descripcion": concepto.descripcion, "cantidad": numero(&concepto.cantidad),
                    "precioUnitario": numero(&concepto.valor_unitario), "importe": numero(&concepto.importe),
                    "descuento": concepto.descuento.as_ref().map(numero), "objetoImpuesto": concepto.objeto_imp,
                })
            })
            .collect();
        Ok(Self {
            tipo_comprobante: c.tipo_de_comprobante.clone(),
            fecha: leer_fecha_expedicion(catalogos, &c.lugar_expedicion, &c.fecha)
                .ok_or_else(|| ApiError::internal("fecha", &c.fecha))?,
            subtotal: decimal(&c.sub_total)?,
            descuento: c.descuento.as_ref().map(decimal).transpose()?,
            total: decimal(&c.total)?,
            moneda: c.moneda.clone(),
            tipo_cambio: c.tipo_cambio.as_ref().map(decimal).transpose()?,
            forma_pago: c.forma_pago.clone(),
            metodo_pago: c.metodo_pago.clone(),
            emisor_rfc: c.emisor.rfc.clone(),
            emisor_nombre: c.emisor.nombre.clone(),
            emisor_regimen: c.emisor.regimen_fiscal.clone(),
            receptor_rfc: c.receptor.rfc.clone(),
            receptor_nombre: c.receptor.nombre.clone(),
            receptor_uso_cfdi: c.receptor.uso_cfdi.clone(),
            conceptos: serde_json::Value::Array(conceptos).to_string(),
            complementos: super::complementos::nombres(c),
            resumen: match c.pagos() {
                Some(pagos) => Some(Box::new(super::pagos::ResumenPago::de(pagos)?)),
                None => None,
            },
        })
    }
}

/// Stamps `documento` for `peticion.empresa` and answers `201` (or the replay of the request
/// that used the same Idempotency-Key first).
pub async fn timbrar(app: &AppContext, peticion: &Peticion<'_>, documento: Documento) -> ApiResult<Answer> {
    timbrar_con_efectos(app, peticion, documento, None).await
}

/// [`timbrar`], with `efectos` applied in the stamp's own transaction (see the module doc).
pub async fn timbrar_con_efectos(
    app: &AppContext,
    peticion: &Peticion<'_>,
    documento: Documento,
    efectos: Option<Arc<dyn Efectos>>,
) -> ApiResult<Answer> {
    let Documento { contenido, serie, cliente_id, operacion } = documento;
    let registro = Registro::nuevo(peticion.empresa, peticion.fecha_local, serie, cliente_id, operacion);
    timbrar_con_registro(app, peticion, contenido, registro, efectos).await
}

/// [`timbrar_con_efectos`] with the record fields chosen by the caller (a payroll receipt knows
/// its CFDI id before it is stamped). Every stamp passes here once and is counted in `/metrics`.
pub async fn timbrar_con_registro(
    app: &AppContext,
    peticion: &Peticion<'_>,
    contenido: PorSellar,
    registro: Registro,
    efectos: Option<Arc<dyn Efectos>>,
) -> ApiResult<Answer> {
    let sandbox = peticion.empresa.sandbox;
    let result = sellar_y_timbrar(app, peticion, contenido, registro, efectos).await;
    crate::metrics::metrics().stamp(sandbox, resultado(&result));
    result
}

/// How a stamp ended, for `/metrics`: a live failure that kept its attempt for reconciliation
/// (5xx with `intentoId`) is `unknown`, any other client-side refusal `rejected`.
fn resultado(result: &ApiResult<Answer>) -> &'static str {
    match result {
        Ok(_) => "stamped",
        Err(error) if error.code.status().is_client_error() => "rejected",
        Err(error) if error.details.get("intentoId").is_some() => "unknown",
        Err(_) => "error",
    }
}

async fn sellar_y_timbrar(
    app: &AppContext,
    peticion: &Peticion<'_>,
    contenido: PorSellar,
    registro: Registro,
    efectos: Option<Arc<dyn Efectos>>,
) -> ApiResult<Answer> {
    let empresa = peticion.empresa;
    if empresa.sandbox {
        let csd = credenciales::csd_sandbox(app, &empresa.id, &empresa.rfc, &empresa.razon_social).await?;
        sandbox(app, peticion, contenido, registro, csd, efectos).await
    } else {
        let csd = credenciales::csd_live(app, &empresa.id, peticion.now).await?;
        let pac = app.pac.clone().ok_or_else(|| {
            ApiError::new(
                Code::Live001,
                "live stamping needs a PAC: the installation must set TIMBRA_PAC_URL (see /llms-full.txt); \
                 switch the company to sandbox: true to test",
            )
        })?;
        super::live::timbrar(app, peticion, contenido.as_ref(), &registro, csd, pac, efectos.as_deref()).await
    }
}

/// Sandbox: the seal and the TFD are made outside the write transaction with the folio
/// predicted for this stamp (`cfdi::folios`), so concurrent stamps sign in parallel; the stamp
/// then waits for the one predicted before it to be queued and goes to the process's writer
/// ([`group_commit`](super::group_commit)), which takes the folio, seals again when it is not
/// the predicted one, and writes the invoice, its XML, its event and the idempotent answer
/// with the rest of its batch in one transaction. The answer comes once that committed.
async fn sandbox(
    app: &AppContext,
    peticion: &Peticion<'_>,
    contenido: PorSellar,
    registro: Registro,
    csd: Arc<super::csd::Csd>,
    efectos: Option<Arc<dyn Efectos>>,
) -> ApiResult<Answer> {
    let empresa = peticion.empresa;
    let pac = credenciales::pac_sandbox(app).await?;
    let datos = timbre_sandbox(peticion.fecha_local);
    let uuid_xml = datos.uuid.clone();
    // The counter only matters the first time this process stamps the serie, or after a
    // prediction missed (another process may be stamping it): a round trip saved otherwise.
    let actual = if app.cfdi.folios.por_leer(&empresa.id, &registro.serie) {
        Some(ultimo_folio(app, &empresa.id, true, &registro.serie).await?)
    } else {
        None
    };
    let turno = app.cfdi.folios.turno(&empresa.id, &registro.serie, actual);
    let en_camino = app.cfdi.group_commit.en_camino();
    let (sellado, xml_comprimido) =
        sellar_sandbox(contenido.clone(), turno.folio, csd.clone(), pac.clone(), datos.clone()).await?;
    let fila = sellado.fila(&*app.catalogos.indice)?;
    turno.esperar().await;
    let sellado = group_commit::Sellado {
        empresa_id: empresa.id.clone(),
        mode: peticion.mode.to_owned(),
        clave: peticion.clave.cloned(),
        now: peticion.now,
        timbrado_en: peticion.fecha_local,
        uuid_api: format!("SANDBOX-{uuid_xml}"),
        uuid_xml,
        fila,
        xml_comprimido,
        folio_sellado: turno.folio,
        resello: group_commit::Resello { contenido, csd, pac, datos },
        turno: Some(turno),
        registro,
        efectos,
    };
    app.cfdi.group_commit.timbrar(&app.db, sellado, en_camino).await
}

/// The last folio taken of (`empresa_id`, mode, `serie`), 0 before the first.
pub async fn ultimo_folio(app: &AppContext, empresa_id: &EmpresaId, sandbox: bool, serie: &str) -> ApiResult<i64> {
    let mut conn = app.db.conn().await?;
    Ok(timbra_store::folios::ultimo(&mut conn, empresa_id, sandbox, serie).await?)
}

/// Writes the invoice row, its XML, its type's persist effects (`factura.timbrada` by default,
/// [`Efectos::al_persistir`]) and the idempotent answer in `tx` and commits it; or, when a concurrent request with the same Idempotency-Key stored
/// first, rolls back and answers as that one did.
pub(super) async fn persistir(
    app: &AppContext,
    mut tx: Tx,
    peticion: &Peticion<'_>,
    registro: &Registro,
    timbrado: Timbrado,
    clave_reservada: bool,
    efectos: Option<&dyn Efectos>,
) -> ApiResult<Answer> {
    let empresa_id = &peticion.empresa.id;
    let fila = timbrado.documento.fila(&*app.catalogos.indice)?;
    let mut cfdis = MultiInsert::new(timbra_store::cfdis::CFDIS_INSERT, timbra_store::cfdis::CFDIS_COLUMNS, "");
    cfdis.row(fila.valores(
        empresa_id,
        registro,
        timbrado.folio,
        &timbrado.uuid_api,
        &timbrado.uuid_xml,
        timbrado.timbrado_en,
        peticion.now,
    ));
    cfdis.execute(&mut tx).await?;
    cfdi_xml::guardar(
        &mut tx,
        &registro.cfdi_id,
        empresa_id,
        &registro.xml_path,
        &timbrado.xml_comprimido,
        peticion.now,
    )
    .await?;
    let escrito = Escrito {
        empresa_id,
        registro,
        fila: &fila,
        uuid_api: &timbrado.uuid_api,
        folio: timbrado.folio,
        now: peticion.now,
    };
    al_persistir(efectos, &mut tx, std::slice::from_ref(&escrito)).await?;
    let answer = fila.respuesta(peticion.mode, registro, &timbrado.uuid_api, timbrado.timbrado_en, timbrado.folio);
    let guardada = idempotency::store_answer(
        &mut tx,
        empresa_id,
        peticion.clave,
        idempotency::Uso::de(registro.operacion),
        StatusCode::CREATED,
        &answer,
        peticion.now,
        clave_reservada,
    )
    .await?;
    match peticion.clave {
        Some(clave) if !guardada => {
            drop(tx);
            idempotency::winner(
                &app.db,
                empresa_id,
                clave,
                Some(idempotency::Uso::de(registro.operacion)),
                peticion.now,
            )
            .await
        }
        _ => {
            tx.commit().await?;
            Ok(idempotency::answer(StatusCode::CREATED, answer))
        }
    }
}
