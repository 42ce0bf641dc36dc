//! The dashboard's Spanish for a validation problem: one table from an error code and the
//! field path the services name (`details.fields[].field`, `details.problemas[].campo`,
//! `details.campo`) to the label the form gives the field and a sentence saying what to fix.
//!
//! The API's own messages stay English and never reach a page: a field the table does not
//! know gets the code's Spanish text ([`textos::mensaje`]) without a label, so a person never
//! reads English or a raw field name.

use timbra_services::error::Code;

use super::textos;

/// A row of the table: the codes it applies to (none: any code), the field path with every
/// index written `[]`, the form's label and the sentence.
struct Frase {
    codigos: &'static [Code],
    campo: &'static str,
    etiqueta: &'static str,
    frase: &'static str,
}

const fn f(codigos: &'static [Code], campo: &'static str, etiqueta: &'static str, frase: &'static str) -> Frase {
    Frase { codigos, campo, etiqueta, frase }
}

use Code::*;

/// Companies and customers share their tax data's fields.
const FISCALES: &[Code] = &[Empresa001, Cliente001, Empleado001];

#[rustfmt::skip]
const TABLA: &[Frase] = &[
    // Account and members.
    f(&[User001], "name", "Nombre", "Escriba su nombre, de 2 a 100 caracteres."),
    f(&[User001], "email", "Correo electrónico", "Escriba una dirección de correo válida, como ana@ejemplo.com."),
    f(&[User001], "password", "Contraseña", "Use al menos 8 caracteres, con una mayúscula, un número y un signo."),
    f(&[Member001], "email", "Correo de un usuario registrado", "Nadie se ha registrado con ese correo: la persona debe crear su cuenta primero."),
    f(&[Member001], "role", "Rol", "Elija un rol de la lista."),
    // A company's and a customer's tax data.
    f(FISCALES, "rfc", "RFC", "Escriba un RFC válido: 12 caracteres de persona moral o 13 de persona física, con homoclave."),
    f(FISCALES, "razonSocial", "Razón social", "Escriba la razón social como en la Constancia de Situación Fiscal, sin el carácter «|»."),
    f(FISCALES, "regimenFiscal", "Régimen fiscal", "Elija un régimen fiscal del catálogo del SAT que corresponda a la persona del RFC (física o moral)."),
    f(FISCALES, "codigoPostal", "Código postal del domicilio fiscal", "Escriba un código postal de exactamente 5 dígitos que exista en el catálogo del SAT."),
    f(&[Cliente001, Cfdi001], "usoCfdi", "Uso del CFDI", "Elija un uso del CFDI que el catálogo del SAT permita para el régimen fiscal y la persona del RFC."),
    f(&[Cliente001], "email", "Correo electrónico", "Escriba una dirección de correo válida, como cliente@ejemplo.com, o déjela vacía."),
    f(&[Cliente001], "residenciaFiscal", "País de residencia fiscal", "Un cliente en el extranjero lleva país de residencia fiscal y número de registro tributario."),
    f(&[Cliente001], "numRegIdTrib", "Número de registro tributario", "Un cliente en el extranjero lleva país de residencia fiscal y número de registro tributario."),
    f(&[Empresa001], "nombreComercial", "Nombre comercial", "Escriba hasta 300 caracteres."),
    f(&[Empresa001], "seriePredeterminada", "Serie de facturas", "La serie lleva de 1 a 25 caracteres, sin espacios ni «|»."),
    f(&[Empresa001], "seriePagos", "Serie de pagos", "La serie lleva de 1 a 25 caracteres, sin espacios ni «|»."),
    f(&[Empresa001, Nomina001], "registroPatronal", "Registro patronal (IMSS)", "Escriba el registro patronal del IMSS como aparece en su tarjeta patronal (11 caracteres)."),
    f(&[Empresa001], "diasAguinaldo", "Días de aguinaldo", "Escriba un número entero de días, de 15 a 365."),
    f(&[Empresa001], "metodoIsrExtraordinario", "Método del ISR de pagos extraordinarios", "Elija el artículo 96 de la LISR o el 174 de su reglamento."),
    f(&[Empresa001, Nomina001], "primaRiesgo", "Prima de riesgo de trabajo", "Escriba la prima en por ciento, de 0.5 a 15, con hasta 5 decimales."),
    // Certificates.
    f(&[Csd001, Fiel001, Csd002, Fiel002], "cerBase64", "Archivo .cer", "Suba el archivo .cer del certificado."),
    f(&[Csd001, Fiel001, Csd002, Fiel002], "keyBase64", "Archivo .key", "Suba el archivo .key de la llave privada."),
    f(&[Csd001, Fiel001, Csd002, Fiel002], "password", "Contraseña de la llave privada", "Escriba la contraseña de la llave privada."),
    // Products.
    f(&[Producto001], "descripcion", "Descripción", "Escriba la descripción, sin el carácter «|»."),
    f(&[Producto001, Cfdi001], "claveProdServ", "Clave de producto o servicio", "Escriba una clave vigente del catálogo c_ClaveProdServ, de 8 dígitos (p. ej. 81112100)."),
    f(&[Producto001, Cfdi001], "claveUnidad", "Clave de unidad", "Escriba una clave vigente del catálogo c_ClaveUnidad (p. ej. E48 o H87)."),
    f(&[Producto001], "precioUnitario", "Precio unitario (sin IVA)", "Escriba un importe no negativo con hasta 6 decimales, como 1500.00."),
    f(&[Producto001], "ivaRate", "Tasa de IVA", "Escriba 0.16, 0.08 o 0."),
    f(&[Producto001], "fraccionArancelaria", "Fracción arancelaria", "Escriba una fracción arancelaria del catálogo del SAT."),
    f(&[Producto001], "materialPeligroso", "Material peligroso", "Elija Sí o No."),
    // Invoices.
    f(&[Cfdi001, Cfdi004], "clienteId", "Cliente", "Elija un cliente de la lista."),
    f(&[Cfdi001], "formaPago", "Forma de pago", "Elija una forma de pago de la lista (con método PPD va 99, por definir)."),
    f(&[Cfdi001], "metodoPago", "Método de pago", "Elija PUE (una sola exhibición) o PPD (en parcialidades o diferido)."),
    f(&[Cfdi001], "fecha", "Fecha", "La fecha no puede ser futura ni de hace más de 72 horas."),
    f(&[Cfdi001], "conceptos", "Conceptos", "Agregue al menos un concepto."),
    f(&[Cfdi001], "conceptos[].descripcion", "Descripción", "Escriba la descripción del concepto, sin el carácter «|»."),
    f(&[Cfdi001], "conceptos[].cantidad", "Cantidad", "Escriba una cantidad mayor que cero, como 1 o 2.5."),
    f(&[Cfdi001], "conceptos[].precioUnitario", "Precio unitario", "Escriba un importe no negativo con hasta 6 decimales, como 1500.00."),
    f(&[Cfdi001], "conceptos[].descuento", "Descuento", "Escriba un descuento no mayor que el importe del concepto, o déjelo vacío."),
    f(&[Cfdi001], "conceptos[].objetoImpuesto", "IVA", "Elija si el concepto causa IVA y a qué tasa."),
    f(&[Cfdi001], "conceptos[].impuestos", "IVA y retenciones", "Revise el IVA y las retenciones del concepto."),
    f(&[Cancel001, Cancel004], "motivo", "Motivo de cancelación", "Elija un motivo de cancelación de la lista."),
    f(&[Cancel001, Cancel004], "folioSustitucion", "Folio fiscal que la sustituye", "Escriba el folio fiscal (UUID) de la factura timbrada que la sustituye; solo con el motivo 01."),
    f(&[Correo002], "para", "Para", "Escriba direcciones de correo válidas, separadas por comas."),
    // API keys and webhooks.
    f(&[ApiKey001], "name", "Nombre", "Escriba un nombre descriptivo de 1 a 100 caracteres."),
    f(&[ApiKey001], "expiresInDays", "Vence en (días)", "Escriba un número entero de días, o déjelo vacío."),
    f(&[ApiKey001], "empresaIds", "Empresas", "Elija al menos una empresa, o ninguna para todas."),
    f(&[ApiKey001], "scopes", "Permisos", "Elija permisos de la lista, o ninguno para una llave completa."),
    f(&[Webhook001], "url", "URL que recibe los eventos", "Escriba una dirección https:// pública que reciba los eventos."),
    f(&[Webhook001], "events", "Eventos", "Elija eventos de la lista."),
    f(&[Webhook001], "description", "Descripción", "Escriba hasta 500 caracteres."),
    // Payroll.
    f(&[Empleado001], "numEmpleado", "Número de empleado", "Escriba de 1 a 15 caracteres, sin «|»."),
    f(&[Empleado001], "nombre", "Nombre", "Escriba el nombre como en la Constancia de Situación Fiscal del empleado."),
    f(&[Empleado001], "curp", "CURP", "Escriba la CURP de 18 caracteres, con su dígito verificador."),
    f(&[Empleado001], "nss", "Número de seguridad social", "Escriba los 11 dígitos del NSS, con su dígito verificador."),
    f(&[Empleado001], "fechaInicioRelLaboral", "Inicio de la relación laboral", "Escriba la fecha como AAAA-MM-DD."),
    f(&[Empleado001], "fechaBaja", "Fecha de baja", "Escriba la fecha como AAAA-MM-DD."),
    f(&[Empleado001], "fechaMovimiento", "Fecha del movimiento", "Escriba la fecha como AAAA-MM-DD."),
    f(&[Empleado001, Nomina001], "salarioDiario", "Salario diario", "Escriba un importe mayor que cero."),
    f(&[Empleado001, Nomina001], "salarioDiarioIntegrado", "Salario diario integrado", "Escriba un importe mayor que cero."),
    f(&[Empleado001, Nomina001], "periodicidad", "Periodicidad de pago", "Elija una periodicidad de la lista."),
    f(&[Empleado001], "tipoContrato", "Tipo de contrato", "Elija un tipo de contrato de la lista."),
    f(&[Empleado001], "tipoJornada", "Tipo de jornada", "Elija un tipo de jornada de la lista."),
    f(&[Empleado001, Nomina001], "riesgoPuesto", "Riesgo de puesto", "Elija un riesgo de puesto de la lista."),
    f(&[Empleado001], "claveEntFed", "Entidad federativa", "Elija la entidad donde trabaja el empleado."),
    f(&[Empleado001], "departamento", "Departamento", "Escriba hasta 100 caracteres."),
    f(&[Empleado001], "puesto", "Puesto", "Escriba el puesto, sin el carácter «|»."),
    f(&[Empleado001], "banco", "Banco (c_Banco)", "Elija un banco del catálogo c_Banco."),
    f(&[Empleado001], "cuentaBancaria", "Cuenta, tarjeta o CLABE", "Escriba una cuenta de 10 u 11 dígitos, una tarjeta de 16 o una CLABE de 18."),
    f(&[Nomina001], "diasPagados", "Días pagados", "Escriba los días del periodo: 7, 14, 15 o 30."),
    f(&[Nomina001], "fechaInicio", "Primer día", "Escriba la fecha como AAAA-MM-DD."),
    f(&[Nomina001], "fechaFin", "Último día", "Escriba una fecha AAAA-MM-DD que no sea anterior al primer día."),
    f(&[Nomina001], "fechaPago", "Fecha de pago", "Escriba una fecha AAAA-MM-DD que no sea anterior al último día del periodo."),
    f(&[Nomina001], "zona", "Zona del salario mínimo", "Elija una zona de la lista."),
    f(&[Nomina001], "percepciones", "Percepción", "Revise el tipo, el concepto y el importe de la percepción."),
    f(&[Nomina001], "deducciones", "Deducción", "Revise el tipo, el concepto y el importe de la deducción."),
    // Tickets and self-invoicing.
    f(&[Recibo001], "periodicidad", "Periodicidad", "Elija una periodicidad de la lista."),
    f(&[Recibo001], "meses", "Mes", "Escriba el mes, de 01 a 12 (13 a 18 para bimestres)."),
    f(&[Recibo001], "año", "Año", "Escriba el año con cuatro dígitos."),
    f(&[Recibo001], "slug", "Dirección de su página", "Use letras minúsculas, números y guiones."),
    f(&[Recibo001], "diasVigencia", "Días para facturar un ticket", "Escriba un número entero de días."),
    f(&[Recibo001], "folio", "Folio", "Ese folio ya es de otro ticket de la empresa."),
    // Retentions.
    f(&[Retencion001], "cveRetenc", "Tipo de retención", "Elija un tipo de retención de la lista."),
    f(&[Retencion001], "descRetenc", "Descripción", "Escriba la descripción: es obligatoria con «25 · Otro»."),
    f(&[Retencion001], "rfcR", "RFC del receptor", "Escriba un RFC válido del receptor."),
    f(&[Retencion001], "nomDenRazSocR", "Nombre o razón social del receptor", "Escriba el nombre o la razón social del receptor."),
    f(&[Retencion001], "domicilioFiscalR", "Código postal del receptor", "Escriba un código postal de 5 dígitos."),
    f(&[Retencion001], "mesIni", "Mes inicial", "Elija un mes inicial no posterior al final."),
    f(&[Retencion001], "mesFin", "Mes final", "Elija un mes final no anterior al inicial."),
    f(&[Retencion001], "ejercicio", "Ejercicio", "Escriba el año de la retención, con cuatro dígitos."),
    f(&[Retencion001], "montoTotOperacion", "Monto de la operación", "Escriba un importe, como 1500.00; los totales deben cuadrar."),
    f(&[Retencion001], "montoTotGrav", "Monto gravado", "Escriba un importe no mayor que el de la operación."),
    f(&[Retencion001], "montoTotExent", "Monto gravado", "El monto gravado no puede ser mayor que el de la operación."),
    f(&[Retencion001], "isrRetenido", "ISR retenido", "Escriba un importe, como 150.00."),
    f(&[Retencion001], "ivaRetenido", "IVA retenido", "Escriba un importe, como 160.00."),
    f(&[Retencion001], "impRetenidos", "Impuestos retenidos", "Revise el ISR y el IVA retenidos: deben cuadrar con los totales."),
    // Exports and brand.
    f(&[Zip001], "desde", "Desde", "Escriba la fecha como AAAA-MM-DD, no posterior a «Hasta»."),
    f(&[Zip001], "hasta", "Hasta", "Escriba la fecha como AAAA-MM-DD, no anterior a «Desde»."),
    f(&[Zip001], "tipo", "Comprobantes", "Elija qué comprobantes exportar."),
    f(&[Logo001], "logo", "Logotipo", "Suba una imagen PNG o JPEG de hasta 1 MB."),
    f(&[], "pdf.colorPrimario", "Color", "Escriba un color como #1F4E79."),
    f(&[], "notas", "Notas", "Escriba un texto más breve."),
];

/// A field problem in Spanish: the form's label (none for a field the table does not know)
/// and what to fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problema {
    /// The field's path as the services name it (`conceptos[0].cantidad`).
    pub campo: String,
    /// The form's label of the field, with its line for a repeated one ("Concepto 2 · Cantidad").
    pub etiqueta: Option<String>,
    /// The sentence.
    pub frase: String,
}

impl Problema {
    /// "Etiqueta: frase", for a list of problems away from their fields.
    pub fn linea(&self) -> String {
        match &self.etiqueta {
            Some(etiqueta) => format!("{etiqueta}: {}", self.frase),
            None => self.frase.clone(),
        }
    }
}

/// The Spanish of the problem `code` reports on field `campo`.
pub fn problema(code: Code, campo: &str) -> Problema {
    let (ruta, indices) = sin_indices(campo);
    let ultimo = ruta.rsplit('.').next().unwrap_or(&ruta).trim_end_matches("[]");
    // The full path, then its last member (`receptor.rfcR` → `rfcR`), then shorter prefixes
    // (`conceptos[].impuestos.traslados[].tasaOCuota` → `conceptos[].impuestos`).
    let mut candidatos = vec![ruta.as_str(), ultimo];
    let mut prefijo = ruta.as_str();
    while let Some(corte) = prefijo.rfind(['.', '[']) {
        prefijo = &prefijo[..corte];
        candidatos.push(prefijo);
    }
    let fila = candidatos.iter().find_map(|c| buscar(code, c));
    match fila {
        Some(fila) => Problema {
            campo: campo.to_owned(),
            etiqueta: Some(con_linea(&ruta, &indices, fila.etiqueta)),
            frase: fila.frase.to_owned(),
        },
        None => Problema { campo: campo.to_owned(), etiqueta: None, frase: textos::mensaje(code).to_owned() },
    }
}

/// The row for `code` and `campo`: one naming the code first, then one for any code.
fn buscar(code: Code, campo: &str) -> Option<&'static Frase> {
    TABLA
        .iter()
        .find(|f| f.campo == campo && f.codigos.contains(&code))
        .or_else(|| TABLA.iter().find(|f| f.campo == campo && f.codigos.is_empty()))
}

/// `conceptos[0].impuestos[1]` → (`conceptos[].impuestos[]`, [0, 1]).
fn sin_indices(campo: &str) -> (String, Vec<usize>) {
    let mut ruta = String::with_capacity(campo.len());
    let mut indices = Vec::new();
    let mut resto = campo;
    while let Some(inicio) = resto.find('[') {
        ruta.push_str(&resto[..=inicio]);
        let tras = &resto[inicio + 1..];
        let fin = tras.find(']').unwrap_or(tras.len());
        if let Ok(n) = tras[..fin].parse::<usize>() {
            indices.push(n);
        }
        resto = tras.get(fin..).unwrap_or_default();
    }
    ruta.push_str(resto);
    (ruta, indices)
}

/// The label of a field of a repeated line, with the line's number as the form counts them.
fn con_linea(ruta: &str, indices: &[usize], etiqueta: &str) -> String {
    let linea = match ruta.split('[').next() {
        Some("conceptos") => "Concepto",
        Some("percepciones") => "Percepción",
        Some("deducciones") => "Deducción",
        Some("impRetenidos") => "Impuesto retenido",
        _ => return etiqueta.to_owned(),
    };
    match indices.first() {
        Some(n) if etiqueta != linea => format!("{linea} {} · {etiqueta}", n + 1),
        Some(n) => format!("{linea} {}", n + 1),
        None => etiqueta.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{TABLA, problema};
    use timbra_services::error::Code;

    #[test]
    fn a_known_field_reads_as_the_form_labels_it() {
        let p = problema(Code::Cliente001, "codigoPostal");
        assert_eq!(p.etiqueta.as_deref(), Some("Código postal del domicilio fiscal"));
        assert!(p.frase.contains("5 dígitos"), "{p:?}");
        let p = problema(Code::Cfdi001, "conceptos[1].cantidad");
        assert_eq!(p.linea(), "Concepto 2 · Cantidad: Escriba una cantidad mayor que cero, como 1 o 2.5.");
        let p = problema(Code::Cfdi001, "conceptos[0].impuestos.traslados[0].tasaOCuota");
        assert_eq!(p.etiqueta.as_deref(), Some("Concepto 1 · IVA y retenciones"));
        let p = problema(Code::Retencion001, "receptor.nacional.rfcR");
        assert_eq!(p.etiqueta.as_deref(), Some("RFC del receptor"));
    }

    #[test]
    fn an_unknown_field_gets_the_codes_sentence_and_no_raw_name() {
        let p = problema(Code::Cliente001, "algoNuevo[3].raro");
        assert_eq!(p.etiqueta, None);
        assert_eq!(p.frase, "Revise los datos del cliente.");
        assert!(!p.linea().contains("algoNuevo"));
    }

    #[test]
    fn every_row_is_spanish_prose() {
        for fila in TABLA {
            assert!(fila.frase.ends_with('.'), "{}", fila.campo);
            assert!(!fila.etiqueta.is_empty() && !fila.etiqueta.contains(fila.campo), "{}", fila.campo);
        }
    }
}
