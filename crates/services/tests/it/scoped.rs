//! The shared CRUD of company-scoped resources, through customers, products and employees.

use timbra_services::clientes::{self, Clientes};
use timbra_services::error::{ApiError, Code};
use timbra_services::nomina::empleados::{self, Empleados};
use timbra_services::productos::{self, Productos};
use timbra_services::scoped;
use timbra_store::Paging;
use timbra_store::ids::EmpresaId;

/// The error of an operation that had to refuse.
fn refused<T>(outcome: Result<T, ApiError>) -> ApiError {
    match outcome {
        Ok(_) => panic!("accepted what it had to refuse"),
        Err(error) => error,
    }
}

fn cliente(rfc: &str) -> clientes::Campos {
    clientes::Campos {
        rfc: Some(rfc.into()),
        razon_social: Some("UNIVERSIDAD ROBOTICA ESPAÑOLA".into()),
        regimen_fiscal: Some("601".into()),
        codigo_postal: Some("65000".into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn customers_are_created_updated_listed_and_deleted_in_their_company() {
    let (app, empresa) = crate::app_with_empresa().await;
    let row = scoped::create::<Clientes>(&app, &empresa, cliente("URE180429TM6")).await.unwrap();
    assert_eq!((row.rfc.as_str(), row.uso_cfdi.as_str()), ("URE180429TM6", "G03"));

    // An update keeps what it leaves out.
    let changed = clientes::Campos { email: Some(" pagos@ure.mx ".into()), ..Default::default() };
    let row = scoped::update::<Clientes>(&app, &empresa, &row.id, changed).await.unwrap();
    assert_eq!(
        (row.razon_social.as_str(), row.email.as_deref()),
        ("UNIVERSIDAD ROBOTICA ESPAÑOLA", Some("pagos@ure.mx"))
    );

    let (rows, total) =
        scoped::page::<Clientes>(&app, &empresa, Some("robotica"), &Paging::new(1, 20).unwrap()).await.unwrap();
    assert_eq!((rows.len(), total), (1, 1));

    // Another company sees none of it.
    assert_eq!(refused(scoped::get::<Clientes>(&app, &EmpresaId::from("otra"), &row.id).await).code, Code::NotFound);

    scoped::delete::<Clientes>(&app, &empresa, &row.id).await.unwrap();
    assert_eq!(refused(scoped::delete::<Clientes>(&app, &empresa, &row.id).await).code, Code::NotFound);
}

#[tokio::test]
async fn a_taken_rfc_is_the_resources_own_conflict() {
    let (app, empresa) = crate::app_with_empresa().await;
    scoped::create::<Clientes>(&app, &empresa, cliente("URE180429TM6")).await.unwrap();
    let error = refused(scoped::create::<Clientes>(&app, &empresa, cliente("URE180429TM6")).await);
    assert_eq!(error.code, Code::Cliente002);
    assert_eq!(error.message, "a customer with RFC URE180429TM6 already exists in this company");
}

#[tokio::test]
async fn field_problems_name_every_field() {
    let (app, empresa) = crate::app_with_empresa().await;
    let error = refused(scoped::create::<Productos>(&app, &empresa, productos::Campos::default()).await);
    assert_eq!(error.code, Code::Producto001);
    let fields: Vec<&str> =
        error.details["fields"].as_array().unwrap().iter().map(|problem| problem["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["claveProdServ", "claveUnidad", "descripcion", "precioUnitario"]);

    let error = refused(scoped::create::<Empleados>(&app, &empresa, empleados::Campos::default()).await);
    assert_eq!(error.code, Code::Empleado001);
}
