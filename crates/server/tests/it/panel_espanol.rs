//! Issue 38, item 6: the dashboard speaks Spanish. Its forms show validation problems in
//! Spanish by error code and field, labelled as the form labels the field (the API keeps its
//! English messages); a customer's régimen and uso CFDI are picked from SAT's catalogs (the
//! usos filtered by régimen and persona); the invoice page shows the tax breakdown.

use serde_json::json;

use crate::harness::{As, each_backend};
use crate::panel::{ConFormulario, crear_empresa, location, registrar};

/// The customer's fields with a postal code of three digits.
const CLIENTE_MALO: &[(&str, &str)] = &[
    ("rfc", "XIA190128J61"),
    ("razonSocial", "XENON INDUSTRIAL ARTICLES"),
    ("regimenFiscal", "601"),
    ("codigoPostal", "123"),
    ("usoCfdi", "G03"),
];

/// No English message of the services and no raw field name reach the page.
fn sin_ingles(page: &str) {
    for ingles in ["exactly 5 digits", "is required", "must be", "codigoPostal:", "conceptos[", "c_CodigoPostal)"] {
        assert!(!page.contains(ingles), "English on the page ({ingles}):\n{page}");
    }
}

#[tokio::test]
async fn validation_problems_read_in_spanish_by_code_and_field() {
    each_backend(|app| async move {
        let (client, token) = registrar(&app, "ana@example.com").await;
        let empresa = crear_empresa(&app, &client, &token).await;

        // A customer: the postal code's problem beside its field, as the form labels it.
        let mut campos = CLIENTE_MALO.to_vec();
        campos.push(("_csrf", token.as_str()));
        let response = client.post(format!("{}/panel/clientes", app.base)).formulario(&campos).send().await.unwrap();
        assert_eq!(response.status(), 400);
        let page = response.text().await.unwrap();
        assert!(page.contains("Revise los datos del cliente.") && page.contains("CLIENTE_001"), "{page}");
        let junto = &page[page.find(r#"id="campo-codigoPostal-error""#).expect("the problem beside the field")..];
        assert!(
            junto.contains("Escriba un código postal de exactamente 5 dígitos que exista en el catálogo del SAT."),
            "{page}"
        );
        sin_ingles(&page);

        // A company: a wrong RFC and a blank name.
        let response = client
            .post(format!("{}/panel/empresas", app.base))
            .formulario(&[
                ("_csrf", token.as_str()),
                ("rfc", "NO-ES-RFC"),
                ("razonSocial", ""),
                ("regimenFiscal", "601"),
                ("codigoPostal", "42501"),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400);
        let page = response.text().await.unwrap();
        assert!(page.contains("Escriba un RFC válido: 12 caracteres de persona moral"), "{page}");
        assert!(page.contains("Escriba la razón social como en la Constancia de Situación Fiscal"), "{page}");
        sin_ingles(&page);

        // An invoice: a line's problem names the line and the field as the form does.
        let factura = [
            ("_csrf", token.as_str()),
            ("formaPago", "03"),
            ("metodoPago", "PUE"),
            ("clienteId", ""),
            ("descripcion", "Consultoría"),
            ("cantidad", "0"),
            ("precioUnitario", "100"),
            ("claveProdServ", "81112100"),
            ("claveUnidad", "E48"),
            ("tasaIva", "0.160000"),
        ];
        let response = client.post(format!("{}/panel/facturas", app.base)).formulario(&factura).send().await.unwrap();
        assert_eq!(response.status(), 400);
        let page = response.text().await.unwrap();
        assert!(page.contains("Revise los datos de la factura.") && page.contains("CFDI_001"), "{page}");
        assert!(page.contains("Escriba una cantidad mayor que cero, como 1 o 2.5."), "{page}");
        sin_ingles(&page);
        // The preview lists the same problem with the line's label.
        let preview = client
            .post(format!("{}/panel/facturas/vista-previa", app.base))
            .header("x-csrf-token", &token)
            .formulario(&factura[1..])
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(preview.contains("Concepto 1 · Cantidad: Escriba una cantidad mayor que cero"), "{preview}");
        sin_ingles(&preview);

        // A webhook whose URL is not https: the field's Spanish, not the API's message.
        let response = client
            .post(format!("{}/panel/webhooks", app.base))
            .formulario(&[("_csrf", token.as_str()), ("url", "ftp://nada"), ("events", "cfdi.timbrado")])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400);
        let page = response.text().await.unwrap();
        assert!(page.contains("Escriba una dirección https:// pública que reciba los eventos."), "{page}");
        sin_ingles(&page);

        // The API keeps its English message with the raw field path.
        let cliente = json!({ "rfc": "XIA190128J61", "razonSocial": "XENON INDUSTRIAL ARTICLES",
            "regimenFiscal": "601", "codigoPostal": "123" });
        let key = app
            .post(
                "/api/api-keys",
                &As::default(),
                json!({ "name": "t", "email": "ana@example.com", "password": "Secreto1!" }),
            )
            .await
            .data(201)["key"]
            .as_str()
            .unwrap()
            .to_owned();
        let api = app.post("/api/clientes", &As::key(&key).in_empresa(&empresa), cliente).await;
        api.assert_error(400, "CLIENTE_001");
        let message = api.body["error"]["message"].as_str().unwrap().to_owned();
        assert!(message.starts_with("codigoPostal: ") && message.contains("5 digits"), "{message}");
    })
    .await;
}

#[tokio::test]
async fn regimen_and_uso_cfdi_are_picked_from_sat_catalogs() {
    each_backend(|app| async move {
        let (client, token) = registrar(&app, "ana@example.com").await;
        crear_empresa(&app, &client, &token).await;
        let base = app.base.clone();
        let get = |path: String| {
            let (client, base) = (client.clone(), base.clone());
            async move {
                let response = client.get(format!("{base}{path}")).send().await.unwrap();
                assert_eq!(response.status(), 200, "{path}");
                response.text().await.unwrap()
            }
        };

        // The customer's form: régimen and uso are selects of the shipped catalogs.
        let form = get("/panel/clientes/nuevo".to_owned()).await;
        let regimen = &form[form.find(r#"<select id="campo-regimenFiscal""#).expect("a régimen picker")..];
        let regimen = &regimen[..regimen.find("</select>").unwrap()];
        for clave in ["601", "612", "616", "626"] {
            assert!(regimen.contains(&format!(r#"<option value="{clave}">{clave} — "#)), "{regimen}");
        }
        assert!(regimen.contains(r#"hx-get="/panel/opciones/usos-cfdi""#), "{regimen}");
        assert!(form.contains(r#"<select id="campo-usoCfdi""#), "{form}");
        assert!(
            !form.contains(r#"name="regimenFiscal" type="text""#) && !form.contains(r#"name="usoCfdi" type="text""#)
        );

        // The usos follow c_UsoCFDI: 616 (sin obligaciones fiscales) takes S01, never G03; a
        // persona física's 612 takes D01 (honorarios médicos), a persona moral's 601 does not.
        let usos = get("/panel/opciones/usos-cfdi?regimenFiscal=616&rfc=XAXX010101000".to_owned()).await;
        assert!(usos.contains(r#"value="S01""#) && !usos.contains(r#"value="G03""#), "{usos}");
        let usos = get("/panel/opciones/usos-cfdi?regimenFiscal=612&rfc=PEPJ8001019Q8&usoCfdi=D01".to_owned()).await;
        assert!(usos.contains(r#"<option value="D01" selected>"#), "{usos}");
        let usos = get("/panel/opciones/usos-cfdi?regimenFiscal=601&rfc=XIA190128J61".to_owned()).await;
        assert!(usos.contains(r#"value="G03""#) && !usos.contains(r#"value="D01""#), "{usos}");

        // A customer saved with the picked values; its page shows them chosen.
        let response = client
            .post(format!("{}/panel/clientes", app.base))
            .formulario(&[
                ("_csrf", token.as_str()),
                ("rfc", "XIA190128J61"),
                ("razonSocial", "XENON INDUSTRIAL ARTICLES"),
                ("regimenFiscal", "601"),
                ("codigoPostal", "76343"),
                ("usoCfdi", "G01"),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 303);
        let lista = get("/panel/clientes".to_owned()).await;
        let enlace = r#"<td data-titulo="Razón social"><a href="/panel/clientes/"#;
        let start = lista.find(enlace).unwrap() + enlace.len();
        let id = &lista[start..start + lista[start..].find('"').unwrap()];
        let ficha = get(format!("/panel/clientes/{id}")).await;
        assert!(
            ficha.contains(r#"<option value="601" selected>"#) && ficha.contains(r#"<option value="G01" selected>"#)
        );

        // The invoice form offers the usos of the chosen customer (the empty choice keeps its own).
        let nueva = get("/panel/facturas/nueva".to_owned()).await;
        assert!(nueva.contains(r#"<select id="usoCfdi" name="usoCfdi""#), "{nueva}");
        let usos = get(format!("/panel/opciones/usos-cfdi?clienteId={id}")).await;
        assert!(usos.contains("El del cliente (G01)") && usos.contains(r#"value="G03""#), "{usos}");
        let usos = get("/panel/opciones/usos-cfdi?clienteId=".to_owned()).await;
        assert!(usos.contains(r#"value="S01""#) && !usos.contains(r#"value="G03""#), "{usos}");
        // A uso the customer's régimen does not allow is refused in Spanish.
        let response = client
            .post(format!("{}/panel/facturas", app.base))
            .formulario(&[
                ("_csrf", token.as_str()),
                ("formaPago", "03"),
                ("metodoPago", "PUE"),
                ("clienteId", id),
                ("usoCfdi", "D01"),
                ("descripcion", "Consultoría"),
                ("cantidad", "1"),
                ("precioUnitario", "100"),
                ("claveProdServ", "81112100"),
                ("claveUnidad", "E48"),
                ("tasaIva", "0.160000"),
            ])
            .send()
            .await
            .unwrap();
        let status = response.status();
        let page = response.text().await.unwrap();
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("Revise los datos de la factura."), "{page}");
        sin_ingles(&page);
    })
    .await;
}

#[tokio::test]
async fn the_invoice_page_shows_the_tax_breakdown() {
    each_backend(|app| async move {
        let (client, token) = registrar(&app, "ana@example.com").await;
        crear_empresa(&app, &client, &token).await;
        // The preview test's invoice: 16% IVA on both lines, ISR 10% and IVA 2/3 withheld on
        // the first, a discount on the second.
        let form = [
            ("_csrf", token.as_str()),
            ("formaPago", "03"),
            ("metodoPago", "PUE"),
            ("clienteId", ""),
            ("descripcion", "Consultoría"),
            ("cantidad", "3"),
            ("precioUnitario", "1234.505"),
            ("descuento", ""),
            ("claveProdServ", "81112100"),
            ("claveUnidad", "E48"),
            ("tasaIva", "0.160000"),
            ("retIsr", "0.100000"),
            ("retIva", "0.106667"),
            ("descripcion", "Tornillos"),
            ("cantidad", "7"),
            ("precioUnitario", "0.333"),
            ("descuento", "0.10"),
            ("claveProdServ", "31161500"),
            ("claveUnidad", "H87"),
            ("tasaIva", "0.160000"),
            ("retIsr", ""),
            ("retIva", ""),
        ];
        let response = client.post(format!("{}/panel/facturas", app.base)).formulario(&form).send().await.unwrap();
        assert_eq!(response.status(), 303);
        let page =
            client.get(format!("{}{}", app.base, location(&response))).send().await.unwrap().text().await.unwrap();
        let fila = |marca: &str| {
            let start = page.find(marca).unwrap_or_else(|| panic!("{marca} in {page}"));
            let fila = &page[start..];
            fila[..fila.find("</tr>").unwrap()].to_owned()
        };
        let celdas = |fila: &str| -> Vec<String> {
            fila.split("<td")
                .skip(1)
                .map(|td| {
                    let texto = &td[td.find('>').unwrap() + 1..];
                    texto.replace("<strong>", "").split('<').next().unwrap().to_owned()
                })
                .collect()
        };
        // Worked by hand (Anexo 20's rounding per line): bases 3703.52 + 2.23; IVA 592.56 + 0.36.
        assert_eq!(celdas(&fila(r#"data-desglose="subtotal""#)), ["", "$3,705.85"]);
        assert_eq!(celdas(&fila(r#"data-desglose="descuento""#)), ["", "−$0.10"]);
        let iva = fila(r#"data-impuesto="trasladado IVA 0.160000""#);
        assert!(iva.contains("IVA trasladado 16 %"), "{iva}");
        assert_eq!(celdas(&iva), ["$3,705.75", "$592.92"]);
        let isr = fila(r#"data-impuesto="retenido ISR 0.100000""#);
        assert!(isr.contains("ISR retenido 10 %"), "{isr}");
        assert_eq!(celdas(&isr), ["$3,703.52", "−$370.35"]);
        let iva_ret = fila(r#"data-impuesto="retenido IVA 0.106667""#);
        assert!(iva_ret.contains("IVA retenido 10.6667 %"), "{iva_ret}");
        assert_eq!(celdas(&iva_ret), ["$3,703.52", "−$395.04"]);
        assert_eq!(celdas(&fila(r#"data-desglose="total""#)), ["", "$3,533.28"]);
    })
    .await;
}
