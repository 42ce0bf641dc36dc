//! The MCP resources: the guide (the text of `/llms-full.txt`) and the error code table, so an
//! agent reads how to fill a CFDI and what each code means.

use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents};

use crate::routes::docs;

/// The guide's address.
const GUIA: &str = "timbra://guia";
/// The error table's address.
const ERRORES: &str = "timbra://errores";

/// The resources, as `resources/list` answers them.
pub fn lista() -> Vec<Resource> {
    vec![
        Resource::new(GUIA, "guia")
            .with_title("Guía de la API de timbra (llms-full.txt)")
            .with_description(
                "La guía completa en Markdown: autenticación, empresas, clientes, cómo llenar y timbrar un CFDI 4.0, \
                 pagos, nómina, cancelación, webhooks y códigos de error. El mismo texto que /llms-full.txt.",
            )
            .with_mime_type("text/markdown"),
        Resource::new(ERRORES, "errores")
            .with_title("Códigos de error")
            .with_description(
                "La tabla de códigos de error (código, estado HTTP, significado): el código con que empieza el texto \
                 de una herramienta que falla.",
            )
            .with_mime_type("text/markdown"),
    ]
}

/// The text of the resource `uri`.
pub fn leer(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let texto = match uri {
        GUIA => docs::guia_completa(),
        ERRORES => format!("# Códigos de error\n\n{}", docs::error_table()),
        _ => {
            return Err(ErrorData::resource_not_found(
                format!("no resource {uri:?}: the resources are {GUIA} and {ERRORES}"),
                None,
            ));
        }
    };
    Ok(ReadResourceResult::new(vec![ResourceContents::text(texto, uri).with_mime_type("text/markdown")]))
}
