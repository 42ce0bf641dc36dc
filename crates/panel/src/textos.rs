//! The dashboard's Spanish text for each of the API's error codes (`error.rs`'s table): the
//! services answer codes, the page says what happened in the person's language. A code without
//! its own text gets the generic one with the code, so nothing is ever left unexplained.

use timbra_services::error::Code;

/// What a person reads for `code`.
pub fn mensaje(code: Code) -> &'static str {
    match code {
        Code::Auth001 => "Su sesión terminó o no es válida. Entre de nuevo.",
        Code::Auth002 => "La cuenta fue eliminada.",
        Code::Auth003 => "Su rol en esta empresa no permite esta acción.",
        Code::Auth004 => "Correo o contraseña incorrectos.",
        Code::User001 => "Revise los datos del registro.",
        Code::User002 => "Ya existe una cuenta con este correo. Entre con ella.",
        Code::Request001 => "La solicitud no se pudo leer; revise los datos.",
        Code::Request002 => "El formulario o archivo es demasiado grande.",
        Code::NotFound => "No encontramos lo que busca (o no pertenece a sus empresas).",
        Code::Empresa001 => "Revise los datos de la empresa.",
        Code::Empresa002 => "Ya tiene una empresa con este RFC.",
        Code::Empresa004 => "La empresa no puede quedarse sin propietario.",
        Code::Member001 => "Revise los datos del miembro: el correo de un usuario registrado y un rol.",
        Code::Member002 => "Esa persona ya es miembro de la empresa.",
        Code::Cliente001 => "Revise los datos del cliente.",
        Code::Cliente002 => "Ya existe un cliente con este RFC en la empresa.",
        Code::Producto001 => "Revise los datos del producto.",
        Code::Csd001 => "Suba el archivo .cer, el archivo .key y escriba la contraseña del CSD.",
        Code::Csd002 => "El .cer y el .key no corresponden o la contraseña es incorrecta.",
        Code::Csd003 => "El certificado de sello digital (CSD) está vencido.",
        Code::Csd004 => "El certificado pertenece a otro RFC.",
        Code::Csd005 => "El archivo no es un CSD (¿subió la e.firma en su lugar?).",
        Code::Fiel001 => "Suba el archivo .cer, el archivo .key y escriba la contraseña de la e.firma.",
        Code::Fiel002 => "El .cer y el .key no corresponden o la contraseña es incorrecta.",
        Code::Fiel003 => "La e.firma (FIEL) está vencida.",
        Code::Fiel004 => "La e.firma pertenece a otro RFC.",
        Code::Fiel005 => "El archivo no es una e.firma (¿subió el CSD en su lugar?).",
        Code::Rate001 => "Demasiadas solicitudes. Espere un momento e intente de nuevo.",
        Code::ApiKey001 => "Revise los datos de la llave: nombre, días de vigencia, empresas y permisos.",
        Code::ApiKey002 => "Una llave no puede crear otra con más alcance que ella.",
        Code::Webhook001 => "Revise el webhook: una URL pública http(s), eventos conocidos y una descripción breve.",
        Code::Job001 => "Ese estado de trabajo no existe.",
        Code::Nomina001 => "Revise los datos de la nómina.",
        Code::Nomina002 => "La empresa no tiene registro patronal (IMSS). Agréguelo en la página de la empresa.",
        Code::Nomina003 => "El periodo ya tiene recibos timbrados y no se puede volver a calcular.",
        Code::Nomina004 => "Otro periodo de la misma periodicidad ya cubre algunas de esas fechas.",
        Code::Nomina011 => "Calcule el periodo antes de timbrarlo.",
        Code::Nomina012 => "El recibo no está timbrado o ya fue cancelado.",
        Code::Empleado001 => "Revise los datos del empleado.",
        Code::Empleado002 => "Ya existe un empleado con ese RFC o número de empleado en la empresa.",
        Code::Scope001 => "No encontramos esta empresa entre las suyas.",
        Code::Scope002 => "Esta llave no permite la acción.",
        Code::Cfdi001 => "Revise los datos de la factura.",
        Code::Cfdi002 => "La empresa no tiene CSD. Súbalo en la página de la empresa.",
        Code::Cfdi003 => "El CSD de la empresa está vencido. Suba uno vigente.",
        Code::Cfdi004 => "El cliente no existe en esta empresa.",
        Code::Quota001 | Code::Timbre001 => "No quedan timbres. Recargue su saldo.",
        Code::Cancel001 => "Revise el motivo de cancelación y el folio de sustitución.",
        Code::Cancel002 => "No encontramos la factura.",
        Code::Cancel003 => "Solo se puede cancelar una factura timbrada vigente.",
        Code::Cancel004 => "El motivo 01 requiere el folio fiscal (UUID) de la factura que la sustituye.",
        Code::Cancelacion001 => "No hay una solicitud de cancelación pendiente de su respuesta para ese folio fiscal.",
        Code::Cancelacion002 => "Esa solicitud de cancelación ya fue respondida.",
        Code::Cancelacion003 => "Elija aceptar o rechazar la cancelación.",
        Code::SatConsulta001 => "El servicio de consulta del SAT no respondió. Intente más tarde.",
        Code::SatConsulta002 => "El SAT rechazó la consulta del comprobante (expresión impresa no válida).",
        Code::Live001 => "Esta instalación no tiene PAC configurado para timbrar en modo real.",
        Code::Pac001 => "El PAC rechazó la factura.",
        Code::Zip001 => "Revise el periodo: fechas AAAA-MM-DD, la primera no posterior a la última.",
        Code::Logo001 => "El logotipo debe ser una imagen PNG o JPEG de hasta 1 MB.",
        Code::Internal => "Ocurrió un error interno; quedó registrado. Intente más tarde.",
        _ => "No se pudo completar la operación.",
    }
}

#[cfg(test)]
mod tests {
    use super::mensaje;
    use timbra_services::error::Code;

    #[test]
    fn every_code_has_a_text() {
        for code in Code::ALL {
            assert!(!mensaje(*code).is_empty(), "{}", code.as_str());
        }
    }
}
