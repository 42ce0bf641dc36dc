//! SAT catalogs for CFDI 4.0 (catCFDI), written as Rust from SAT's published facts.
//!
//! Small catalogs are the project's own code (enums carry SAT's exact codes with SAT's
//! description as doc comment); the large ones (c_ClaveProdServ, c_ClaveUnidad,
//! c_CodigoPostal) are reached through the [`Catalogos`] trait, empty by default, so
//! validation works without them and reports that it skipped those checks.
//! A test reads SAT's CSV files at run time and proves these tables match them.

use rust_decimal::Decimal;
use time::Date;

/// Defines a catalog enum with SAT codes and descriptions: `TODOS`, `codigo()`, `descripcion()`,
/// `desde_codigo()` and `Display` as the code (also used by timbra-retenciones).
#[macro_export]
macro_rules! catalogo {
    (
        $(#[$meta:meta])*
        $nombre:ident { $( $variante:ident = $codigo:literal, $descripcion:literal; )+ }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $nombre {
            $( #[doc = $descripcion] $variante, )+
        }

        impl $nombre {
            /// Every entry, in SAT's order.
            pub const TODOS: &'static [$nombre] = &[ $( $nombre::$variante, )+ ];

            /// SAT's code, as written in the XML.
            pub const fn codigo(self) -> &'static str {
                match self { $( $nombre::$variante => $codigo, )+ }
            }

            /// SAT's description.
            pub const fn descripcion(self) -> &'static str {
                match self { $( $nombre::$variante => $descripcion, )+ }
            }

            /// The entry with this code, if it is in the catalog.
            pub fn desde_codigo(codigo: &str) -> Option<Self> {
                match codigo { $( $codigo => Some($nombre::$variante), )+ _ => None }
            }
        }

        impl std::fmt::Display for $nombre {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.codigo())
            }
        }
    };
}

catalogo! {
    /// c_FormaPago: how the invoice was (or will be) paid.
    FormaPago {
        Efectivo = "01", "Efectivo";
        ChequeNominativo = "02", "Cheque nominativo";
        TransferenciaElectronica = "03", "Transferencia electrónica de fondos";
        TarjetaDeCredito = "04", "Tarjeta de crédito";
        MonederoElectronico = "05", "Monedero electrónico";
        DineroElectronico = "06", "Dinero electrónico";
        ValesDeDespensa = "08", "Vales de despensa";
        DacionEnPago = "12", "Dación en pago";
        PagoPorSubrogacion = "13", "Pago por subrogación";
        PagoPorConsignacion = "14", "Pago por consignación";
        Condonacion = "15", "Condonación";
        Compensacion = "17", "Compensación";
        Novacion = "23", "Novación";
        Confusion = "24", "Confusión";
        RemisionDeDeuda = "25", "Remisión de deuda";
        PrescripcionOCaducidad = "26", "Prescripción o caducidad";
        ASatisfaccionDelAcreedor = "27", "A satisfacción del acreedor";
        TarjetaDeDebito = "28", "Tarjeta de débito";
        TarjetaDeServicios = "29", "Tarjeta de servicios";
        AplicacionDeAnticipos = "30", "Aplicación de anticipos";
        IntermediarioPagos = "31", "Intermediario pagos";
        PorDefinir = "99", "Por definir";
    }
}

catalogo! {
    /// c_MetodoPago.
    MetodoPago {
        Pue = "PUE", "Pago en una sola exhibición";
        Ppd = "PPD", "Pago en parcialidades o diferido";
    }
}

catalogo! {
    /// c_RegimenFiscal.
    RegimenFiscal {
        GeneralPersonasMorales = "601", "General de Ley Personas Morales";
        MoralesSinFinesDeLucro = "603", "Personas Morales con Fines no Lucrativos";
        SueldosYSalarios = "605", "Sueldos y Salarios e Ingresos Asimilados a Salarios";
        Arrendamiento = "606", "Arrendamiento";
        EnajenacionDeBienes = "607", "Régimen de Enajenación o Adquisición de Bienes";
        DemasIngresos = "608", "Demás ingresos";
        ResidentesExtranjero = "610", "Residentes en el Extranjero sin Establecimiento Permanente en México";
        Dividendos = "611", "Ingresos por Dividendos (socios y accionistas)";
        ActividadesEmpresarialesYProfesionales = "612", "Personas Físicas con Actividades Empresariales y Profesionales";
        Intereses = "614", "Ingresos por intereses";
        Premios = "615", "Régimen de los ingresos por obtención de premios";
        SinObligacionesFiscales = "616", "Sin obligaciones fiscales";
        CooperativasDeProduccion = "620", "Sociedades Cooperativas de Producción que optan por diferir sus ingresos";
        IncorporacionFiscal = "621", "Incorporación Fiscal";
        ActividadesAgricolas = "622", "Actividades Agrícolas, Ganaderas, Silvícolas y Pesqueras";
        GruposDeSociedades = "623", "Opcional para Grupos de Sociedades";
        Coordinados = "624", "Coordinados";
        PlataformasTecnologicas = "625", "Régimen de las Actividades Empresariales con ingresos a través de Plataformas Tecnológicas";
        SimplificadoDeConfianza = "626", "Régimen Simplificado de Confianza";
    }
}

impl RegimenFiscal {
    /// Column `aplica_fisica`: the régimen may be used by a persona física.
    pub const fn aplica_fisica(self) -> bool {
        !matches!(
            self,
            Self::GeneralPersonasMorales
                | Self::MoralesSinFinesDeLucro
                | Self::CooperativasDeProduccion
                | Self::ActividadesAgricolas
                | Self::GruposDeSociedades
                | Self::Coordinados
        )
    }

    /// Column `aplica_moral`: the régimen may be used by a persona moral.
    pub const fn aplica_moral(self) -> bool {
        matches!(
            self,
            Self::GeneralPersonasMorales
                | Self::MoralesSinFinesDeLucro
                | Self::ResidentesExtranjero
                | Self::CooperativasDeProduccion
                | Self::ActividadesAgricolas
                | Self::GruposDeSociedades
                | Self::Coordinados
                | Self::SimplificadoDeConfianza
        )
    }
}

catalogo! {
    /// c_UsoCFDI: what the receiver will use the invoice for.
    UsoCfdi {
        G01 = "G01", "Adquisición de mercancías.";
        G02 = "G02", "Devoluciones, descuentos o bonificaciones.";
        G03 = "G03", "Gastos en general.";
        I01 = "I01", "Construcciones.";
        I02 = "I02", "Mobiliario y equipo de oficina por inversiones.";
        I03 = "I03", "Equipo de transporte.";
        I04 = "I04", "Equipo de computo y accesorios.";
        I05 = "I05", "Dados, troqueles, moldes, matrices y herramental.";
        I06 = "I06", "Comunicaciones telefónicas.";
        I07 = "I07", "Comunicaciones satelitales.";
        I08 = "I08", "Otra maquinaria y equipo.";
        D01 = "D01", "Honorarios médicos, dentales y gastos hospitalarios.";
        D02 = "D02", "Gastos médicos por incapacidad o discapacidad.";
        D03 = "D03", "Gastos funerales.";
        D04 = "D04", "Donativos.";
        D05 = "D05", "Intereses reales efectivamente pagados por créditos hipotecarios (casa habitación).";
        D06 = "D06", "Aportaciones voluntarias al SAR.";
        D07 = "D07", "Primas por seguros de gastos médicos.";
        D08 = "D08", "Gastos de transportación escolar obligatoria.";
        D09 = "D09", "Depósitos en cuentas para el ahorro, primas que tengan como base planes de pensiones.";
        D10 = "D10", "Pagos por servicios educativos (colegiaturas).";
        S01 = "S01", "Sin efectos fiscales.";
        Cp01 = "CP01", "Pagos";
        Cn01 = "CN01", "Nómina";
    }
}

use RegimenFiscal as R;

/// Receiver regimes of G01, G03, I01–I08 (column `regimenes_fiscales_receptores`).
const REGIMENES_GASTOS: &[RegimenFiscal] = &[
    R::GeneralPersonasMorales,
    R::MoralesSinFinesDeLucro,
    R::Arrendamiento,
    R::ActividadesEmpresarialesYProfesionales,
    R::CooperativasDeProduccion,
    R::IncorporacionFiscal,
    R::ActividadesAgricolas,
    R::GruposDeSociedades,
    R::Coordinados,
    R::PlataformasTecnologicas,
    R::SimplificadoDeConfianza,
];
/// Receiver regimes of G02 (G01's plus 616).
const REGIMENES_G02: &[RegimenFiscal] = &[
    R::GeneralPersonasMorales,
    R::MoralesSinFinesDeLucro,
    R::Arrendamiento,
    R::ActividadesEmpresarialesYProfesionales,
    R::SinObligacionesFiscales,
    R::CooperativasDeProduccion,
    R::IncorporacionFiscal,
    R::ActividadesAgricolas,
    R::GruposDeSociedades,
    R::Coordinados,
    R::PlataformasTecnologicas,
    R::SimplificadoDeConfianza,
];
/// Receiver regimes of D01–D10 (personal deductions of individuals).
const REGIMENES_DEDUCCIONES: &[RegimenFiscal] = &[
    R::SueldosYSalarios,
    R::Arrendamiento,
    R::DemasIngresos,
    R::Dividendos,
    R::ActividadesEmpresarialesYProfesionales,
    R::Intereses,
    R::EnajenacionDeBienes,
    R::Premios,
    R::PlataformasTecnologicas,
];
/// Receiver regimes of S01 and CP01 (every régimen but 621-less list as SAT publishes it).
const REGIMENES_S01: &[RegimenFiscal] = &[
    R::GeneralPersonasMorales,
    R::MoralesSinFinesDeLucro,
    R::SueldosYSalarios,
    R::Arrendamiento,
    R::DemasIngresos,
    R::ResidentesExtranjero,
    R::Dividendos,
    R::ActividadesEmpresarialesYProfesionales,
    R::Intereses,
    R::SinObligacionesFiscales,
    R::CooperativasDeProduccion,
    R::IncorporacionFiscal,
    R::ActividadesAgricolas,
    R::GruposDeSociedades,
    R::Coordinados,
    R::EnajenacionDeBienes,
    R::Premios,
    R::PlataformasTecnologicas,
    R::SimplificadoDeConfianza,
];

impl UsoCfdi {
    /// Column `aplica_fisica`.
    pub const fn aplica_fisica(self) -> bool {
        true
    }

    /// Column `aplica_moral`: the D uses and CN01 are for personas físicas only.
    pub const fn aplica_moral(self) -> bool {
        !matches!(
            self,
            Self::D01
                | Self::D02
                | Self::D03
                | Self::D04
                | Self::D05
                | Self::D06
                | Self::D07
                | Self::D08
                | Self::D09
                | Self::D10
                | Self::Cn01
        )
    }

    /// Column `regimenes_fiscales_receptores`: receiver regimes allowed with this use
    /// (Anexo 20, Receptor/UsoCFDI: "debe corresponder con el tipo de persona y el
    /// régimen fiscal del receptor").
    pub const fn regimenes_receptores(self) -> &'static [RegimenFiscal] {
        match self {
            Self::G02 => REGIMENES_G02,
            Self::G01
            | Self::G03
            | Self::I01
            | Self::I02
            | Self::I03
            | Self::I04
            | Self::I05
            | Self::I06
            | Self::I07
            | Self::I08 => REGIMENES_GASTOS,
            Self::D01
            | Self::D02
            | Self::D03
            | Self::D04
            | Self::D05
            | Self::D06
            | Self::D07
            | Self::D08
            | Self::D09
            | Self::D10 => REGIMENES_DEDUCCIONES,
            Self::S01 | Self::Cp01 => REGIMENES_S01,
            Self::Cn01 => &[R::SueldosYSalarios],
        }
    }

    /// Whether `regimen` may receive an invoice with this use.
    pub fn permite_regimen(self, regimen: RegimenFiscal) -> bool {
        self.regimenes_receptores().contains(&regimen)
    }
}

/// Result of checking a receiver's régimen against a UsoCFDI (public: the server's
/// customer endpoint uses it too).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompatibilidadUso {
    /// The pair is allowed.
    Compatible,
    /// Unknown UsoCFDI code.
    UsoDesconocido,
    /// Unknown régimen code.
    RegimenDesconocido,
    /// Not allowed; `sugeridos` are the uses that régimen may receive (S01 first if allowed).
    Incompatible {
        /// Uses allowed for the régimen.
        sugeridos: Vec<UsoCfdi>,
    },
}

/// Checks régimen ↔ UsoCFDI compatibility from SAT codes (`"616"`, `"G03"`).
pub fn compatibilidad_uso_regimen(uso: &str, regimen: &str) -> CompatibilidadUso {
    let Some(uso) = UsoCfdi::desde_codigo(uso) else {
        return CompatibilidadUso::UsoDesconocido;
    };
    let Some(regimen) = RegimenFiscal::desde_codigo(regimen) else {
        return CompatibilidadUso::RegimenDesconocido;
    };
    if uso.permite_regimen(regimen) {
        return CompatibilidadUso::Compatible;
    }
    CompatibilidadUso::Incompatible { sugeridos: usos_para_regimen(regimen) }
}

/// Uses a receiver with `regimen` may be given, S01 first when allowed (the usual fix
/// when the receiver cannot deduct), CP01/CN01 last.
pub fn usos_para_regimen(regimen: RegimenFiscal) -> Vec<UsoCfdi> {
    let mut usos: Vec<UsoCfdi> = UsoCfdi::TODOS.iter().copied().filter(|uso| uso.permite_regimen(regimen)).collect();
    usos.sort_by_key(|uso| match uso {
        UsoCfdi::S01 => 0,
        UsoCfdi::Cp01 | UsoCfdi::Cn01 => 2,
        _ => 1,
    });
    usos
}

catalogo! {
    /// c_ObjetoImp: whether the concept is subject to tax.
    ObjetoImp {
        NoObjeto = "01", "No objeto de impuesto.";
        SiObjeto = "02", "Sí objeto de impuesto.";
        SiObjetoNoObligadoDesglose = "03", "Sí objeto del impuesto y no obligado al desglose.";
        SiObjetoNoCausa = "04", "Sí objeto del impuesto y no causa impuesto.";
        SiObjetoIvaCreditoPodebi = "05", "Sí objeto del impuesto, IVA crédito PODEBI.";
        SiObjetoIvaNoTrasladoIva = "06", "Sí objeto del IVA, No traslado IVA.";
        NoTrasladoIvaSiDesgloseIeps = "07", "No traslado del IVA, Sí desglose IEPS.";
        NoTrasladoIvaNoDesgloseIeps = "08", "No traslado del IVA, No desglose IEPS.";
    }
}

impl ObjetoImp {
    /// Guía de llenado, ObjetoImp: codes 02 and 07 require the concept's Impuestos node;
    /// 01, 03, 04, 05 (no breakdown) and 06, 08 must not carry it.
    pub const fn requiere_impuestos(self) -> bool {
        matches!(self, Self::SiObjeto | Self::NoTrasladoIvaSiDesgloseIeps)
    }
}

catalogo! {
    /// c_Impuesto.
    Impuesto {
        Isr = "001", "ISR";
        Iva = "002", "IVA";
        Ieps = "003", "IEPS";
    }
}

impl Impuesto {
    /// Column `retencion`.
    pub const fn retencion(self) -> bool {
        true
    }

    /// Column `traslado`: ISR is never transferred.
    pub const fn traslado(self) -> bool {
        !matches!(self, Self::Isr)
    }
}

catalogo! {
    /// c_TipoFactor.
    TipoFactor {
        Tasa = "Tasa", "Tasa";
        Cuota = "Cuota", "Cuota";
        Exento = "Exento", "Exento";
    }
}

catalogo! {
    /// c_TipoDeComprobante.
    TipoDeComprobante {
        Ingreso = "I", "Ingreso";
        Egreso = "E", "Egreso";
        Traslado = "T", "Traslado";
        Nomina = "N", "Nómina";
        Pago = "P", "Pago";
    }
}

impl TipoDeComprobante {
    /// Column `valor_maximo` (T must total 0).
    pub fn valor_maximo(self) -> Decimal {
        match self {
            Self::Traslado => Decimal::ZERO,
            // 999999999999999999.999999 has 24 digits and fits in a Decimal.
            _ => Decimal::from_i128_with_scale(999_999_999_999_999_999_999_999, 6),
        }
    }
}

catalogo! {
    /// c_TipoRelacion.
    TipoRelacion {
        NotaDeCredito = "01", "Nota de crédito de los documentos relacionados";
        NotaDeDebito = "02", "Nota de débito de los documentos relacionados";
        DevolucionDeMercancia = "03", "Devolución de mercancía sobre facturas o traslados previos";
        Sustitucion = "04", "Sustitución de los CFDI previos";
        TrasladosFacturadosPreviamente = "05", "Traslados de mercancías facturados previamente";
        FacturaPorTrasladosPrevios = "06", "Factura generada por los traslados previos";
        AplicacionDeAnticipo = "07", "CFDI por aplicación de anticipo";
    }
}

catalogo! {
    /// c_Exportacion.
    Exportacion {
        NoAplica = "01", "No aplica";
        DefinitivaA1 = "02", "Definitiva con clave A1";
        Temporal = "03", "Temporal";
        DefinitivaDistintaA1 = "04", "Definitiva con clave distinta a A1 o cuando no existe enajenación en términos del CFF";
    }
}

catalogo! {
    /// c_Meses (InformacionGlobal).
    Meses {
        Enero = "01", "Enero";
        Febrero = "02", "Febrero";
        Marzo = "03", "Marzo";
        Abril = "04", "Abril";
        Mayo = "05", "Mayo";
        Junio = "06", "Junio";
        Julio = "07", "Julio";
        Agosto = "08", "Agosto";
        Septiembre = "09", "Septiembre";
        Octubre = "10", "Octubre";
        Noviembre = "11", "Noviembre";
        Diciembre = "12", "Diciembre";
        EneroFebrero = "13", "Enero-Febrero";
        MarzoAbril = "14", "Marzo-Abril";
        MayoJunio = "15", "Mayo-Junio";
        JulioAgosto = "16", "Julio-Agosto";
        SeptiembreOctubre = "17", "Septiembre-Octubre";
        NoviembreDiciembre = "18", "Noviembre-Diciembre";
    }
}

catalogo! {
    /// c_Periodicidad (InformacionGlobal).
    Periodicidad {
        Diario = "01", "Diario";
        Semanal = "02", "Semanal";
        Quincenal = "03", "Quincenal";
        Mensual = "04", "Mensual";
        Bimestral = "05", "Bimestral";
    }
}

/// One row of c_TasaOCuota.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TasaOCuota {
    /// `Fijo` (exact value) or `Rango` (from `minimo` to `valor`).
    pub rango: bool,
    /// Lower bound for ranges, as SAT writes it.
    pub minimo: &'static str,
    /// The value (or the upper bound of a range), six decimals.
    pub valor: &'static str,
    /// Tax the row applies to.
    pub impuesto: Impuesto,
    /// Tasa or Cuota.
    pub factor: TipoFactor,
    /// Allowed for traslados.
    pub traslado: bool,
    /// Allowed for retenciones.
    pub retencion: bool,
}

const fn fijo(valor: &'static str, impuesto: Impuesto, traslado: bool, retencion: bool) -> TasaOCuota {
    TasaOCuota { rango: false, minimo: "", valor, impuesto, factor: TipoFactor::Tasa, traslado, retencion }
}

/// c_TasaOCuota. The 0.080000 IVA row is SAT's "IVA Crédito aplicado del 50%" (región
/// fronteriza); the IEPS Cuota range is in force since 2026-01-01.
pub const TASAS_O_CUOTAS: &[TasaOCuota] = &[
    fijo("0.000000", Impuesto::Iva, true, false),
    fijo("0.160000", Impuesto::Iva, true, false),
    TasaOCuota {
        rango: true,
        minimo: "0.000000",
        valor: "0.160000",
        impuesto: Impuesto::Iva,
        factor: TipoFactor::Tasa,
        traslado: false,
        retencion: true,
    },
    fijo("0.080000", Impuesto::Iva, true, false),
    fijo("0.265000", Impuesto::Ieps, true, true),
    fijo("0.300000", Impuesto::Ieps, true, true),
    fijo("0.530000", Impuesto::Ieps, true, true),
    fijo("0.500000", Impuesto::Ieps, true, true),
    fijo("1.600000", Impuesto::Ieps, true, true),
    fijo("0.304000", Impuesto::Ieps, true, true),
    fijo("0.250000", Impuesto::Ieps, true, true),
    fijo("0.090000", Impuesto::Ieps, true, true),
    fijo("0.080000", Impuesto::Ieps, true, true),
    fijo("0.070000", Impuesto::Ieps, true, true),
    fijo("0.060000", Impuesto::Ieps, true, true),
    fijo("0.030000", Impuesto::Ieps, true, false),
    fijo("0.000000", Impuesto::Ieps, true, false),
    TasaOCuota {
        rango: true,
        minimo: "0.000000",
        valor: "72.160500",
        impuesto: Impuesto::Ieps,
        factor: TipoFactor::Cuota,
        traslado: true,
        retencion: true,
    },
    TasaOCuota {
        rango: true,
        minimo: "0.000000",
        valor: "0.350000",
        impuesto: Impuesto::Isr,
        factor: TipoFactor::Tasa,
        traslado: false,
        retencion: true,
    },
];

/// Whether `valor` (the attribute text, e.g. `"0.160000"`) is an allowed TasaOCuota for
/// this impuesto and factor, for a traslado (`retencion == false`) or a retención.
/// Fixed values must be written exactly (SAT compares the text, six decimals); ranges
/// compare numerically.
pub fn tasa_o_cuota_permitida(impuesto: Impuesto, factor: TipoFactor, valor: &str, retencion: bool) -> bool {
    let numero = valor.parse::<Decimal>().ok();
    TASAS_O_CUOTAS.iter().any(|fila| {
        fila.impuesto == impuesto
            && fila.factor == factor
            && (if retencion { fila.retencion } else { fila.traslado })
            && if fila.rango {
                let (Ok(minimo), Ok(maximo), Some(numero)) =
                    (fila.minimo.parse::<Decimal>(), fila.valor.parse::<Decimal>(), numero)
                else {
                    return false;
                };
                numero >= minimo && numero <= maximo
            } else {
                fila.valor == valor
            }
    })
}

/// One row of c_Moneda.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moneda {
    /// ISO 4217 code.
    pub codigo: &'static str,
    /// SAT's description.
    pub descripcion: &'static str,
    /// Decimals amounts in this currency are written with.
    pub decimales: u32,
    /// Allowed variation (%) of TipoCambio against the official rate.
    pub porcentaje_variacion: u32,
}

/// Looks up a currency in c_Moneda.
pub fn moneda(codigo: &str) -> Option<&'static Moneda> {
    MONEDAS.iter().find(|moneda| moneda.codigo == codigo)
}

/// Decimals of a currency; 2 when unknown (MXN's), so arithmetic stays defined while
/// validation reports the unknown code.
pub fn decimales_moneda(codigo: &str) -> u32 {
    moneda(codigo).map_or(2, |moneda| moneda.decimales)
}

/// When a catalog entry may be used: SAT's "fecha de inicio de vigencia" and, once the entry
/// is retired, its "fecha de fin de vigencia", both days included. `None` is open-ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Vigencia {
    /// First day in force.
    pub desde: Option<Date>,
    /// Last day in force.
    pub hasta: Option<Date>,
}

impl Vigencia {
    /// Whether the entry is in force on `dia` (a document's date).
    pub fn vigente(&self, dia: Date) -> bool {
        self.desde.is_none_or(|desde| desde <= dia) && self.hasta.is_none_or(|hasta| dia <= hasta)
    }
}

/// c_ClaveProdServ's "Incluir IVA trasladado" and "Incluir IEPS trasladado": whether a concept
/// with the code must carry that traslado.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Incluir {
    /// "No".
    No,
    /// "Sí": the traslado is required.
    Si,
    /// "Opcional".
    Opcional,
}

impl Incluir {
    /// SAT's word.
    pub const fn texto(self) -> &'static str {
        match self {
            Self::No => "No",
            Self::Si => "Sí",
            Self::Opcional => "Opcional",
        }
    }

    /// The value of SAT's word (with or without the accent).
    pub fn desde_texto(texto: &str) -> Option<Self> {
        match texto {
            "No" => Some(Self::No),
            "Sí" | "Si" => Some(Self::Si),
            "Opcional" => Some(Self::Opcional),
            _ => None,
        }
    }
}

/// What validation needs of a c_ClaveProdServ row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DatosClaveProdServ {
    /// Incluir IVA trasladado.
    pub incluir_iva: Incluir,
    /// Incluir IEPS trasladado.
    pub incluir_ieps: Incluir,
    /// "Estímulo franja fronteriza": the code may take the border-region IVA rate.
    pub estimulo_franja_fronteriza: bool,
    /// When the code may be used.
    pub vigencia: Vigencia,
}

/// c_CodigoPostal's "Estímulo franja fronteriza" column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EstimuloFrontera {
    /// `0`: no stimulus.
    Ninguno,
    /// `1`: región fronteriza norte.
    Norte,
    /// `2`: región fronteriza sur.
    Sur,
}

impl EstimuloFrontera {
    /// SAT's code (`0`, `1`, `2`).
    pub const fn codigo(self) -> u8 {
        match self {
            Self::Ninguno => 0,
            Self::Norte => 1,
            Self::Sur => 2,
        }
    }

    /// The value of this code.
    pub const fn desde_codigo(codigo: u8) -> Option<Self> {
        match codigo {
            0 => Some(Self::Ninguno),
            1 => Some(Self::Norte),
            2 => Some(Self::Sur),
            _ => None,
        }
    }
}

/// c_CodigoPostal's "Descripción del Huso Horario": the zone of a LugarExpedicion's local
/// time. The "en Frontera" zone keeps daylight saving time with the United States.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HusoHorario {
    /// "Tiempo del Centro".
    Centro,
    /// "Tiempo del Centro en Frontera".
    CentroEnFrontera,
    /// "Tiempo del Pacífico".
    Pacifico,
    /// "Tiempo del Noroeste".
    Noroeste,
    /// "Tiempo del Sureste".
    Sureste,
}

impl HusoHorario {
    /// Every zone.
    pub const TODOS: &'static [HusoHorario] =
        &[Self::Centro, Self::CentroEnFrontera, Self::Pacifico, Self::Noroeste, Self::Sureste];

    /// SAT's description, as the catalog writes it.
    pub const fn descripcion(self) -> &'static str {
        match self {
            Self::Centro => "Tiempo del Centro",
            Self::CentroEnFrontera => "Tiempo del Centro en Frontera",
            Self::Pacifico => "Tiempo del Pacífico",
            Self::Noroeste => "Tiempo del Noroeste",
            Self::Sureste => "Tiempo del Sureste",
        }
    }

    /// The zone of SAT's description.
    pub fn desde_descripcion(descripcion: &str) -> Option<Self> {
        Self::TODOS.iter().copied().find(|huso| huso.descripcion() == descripcion)
    }

    /// The zone's offset from UTC at the instant `at`. Ley de los Sistemas de Horario en los
    /// Estados Unidos Mexicanos (DOF 2022-10-28): Centro UTC−6, Pacífico UTC−7, Noroeste
    /// UTC−8, Sureste UTC−5, no daylight saving (Art. 3), except the border strip (Art. 5),
    /// which keeps the United States' schedule: "Centro en Frontera" and the Noroeste (Baja
    /// California) are one hour ahead from the second Sunday of March at 2:00 to the first
    /// Sunday of November at 2:00 local time (15 U.S.C. 260a).
    pub fn desfase(self, at: time::OffsetDateTime) -> time::UtcOffset {
        let horas = |h: i8| time::UtcOffset::from_hms(h, 0, 0).unwrap_or(time::UtcOffset::UTC);
        let (estandar, verano) = match self {
            Self::Centro => return horas(-6),
            Self::Pacifico => return horas(-7),
            Self::Sureste => return horas(-5),
            Self::CentroEnFrontera => (-6, -5),
            Self::Noroeste => (-8, -7),
        };
        let utc = at.to_offset(time::UtcOffset::UTC);
        let año = utc.year();
        // Both changes happen at 2:00 local: standard time in March, summer time in November.
        let inicio = domingo(año, time::Month::March, 2)
            .map(|d| d.midnight().assume_utc() + time::Duration::hours(2 - i64::from(estandar)));
        let fin = domingo(año, time::Month::November, 1)
            .map(|d| d.midnight().assume_utc() + time::Duration::hours(2 - i64::from(verano)));
        match (inicio, fin) {
            (Some(inicio), Some(fin)) if utc >= inicio && utc < fin => horas(verano),
            _ => horas(estandar),
        }
    }

    /// An IANA zone with the same offset and daylight-saving rules.
    pub const fn zona_iana(self) -> &'static str {
        match self {
            Self::Centro => "America/Mexico_City",
            Self::CentroEnFrontera => "America/Matamoros",
            Self::Pacifico => "America/Mazatlan",
            Self::Noroeste => "America/Tijuana",
            Self::Sureste => "America/Cancun",
        }
    }
}

/// The `n`-th Sunday of `mes` in `año` (n from 1).
fn domingo(año: i32, mes: time::Month, n: u8) -> Option<Date> {
    let primero = Date::from_calendar_date(año, mes, 1).ok()?;
    let hasta_domingo = (7 - primero.weekday().number_days_from_sunday()) % 7;
    primero.checked_add(time::Duration::days(i64::from(hasta_domingo) + 7 * i64::from(n.checked_sub(1)?)))
}

/// What validation needs of a c_CodigoPostal row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DatosCodigoPostal {
    /// The border-region stimulus (IVA 8%).
    pub estimulo_frontera: EstimuloFrontera,
    /// Its time zone.
    pub huso_horario: HusoHorario,
    /// When the code may be used.
    pub vigencia: Vigencia,
}

/// What c_FormaPago says of the bank data of a payment made that way (Pagos 2.0's Pago):
/// whether each attribute may be registered and the pattern of the accounts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatosFormaPago {
    /// `permite_banco_ordenante_rfc`: RfcEmisorCtaOrd.
    pub permite_rfc_ordenante: bool,
    /// `permite_cuenta_ordenante`: CtaOrdenante.
    pub permite_cuenta_ordenante: bool,
    /// `patron_cuenta_ordenante`, a regular expression.
    pub patron_cuenta_ordenante: Option<String>,
    /// `permite_banco_beneficiario_rfc`: RfcEmisorCtaBen.
    pub permite_rfc_beneficiario: bool,
    /// `permite_cuenta_beneficiario`: CtaBeneficiario.
    pub permite_cuenta_beneficiario: bool,
    /// `patron_cuenta_beneficiario`, a regular expression.
    pub patron_cuenta_beneficiario: Option<String>,
    /// `permite_tipo_cadena_pago`: TipoCadPago (and its certificate, chain and seal).
    pub permite_tipo_cadena_pago: bool,
}

/// The catalogs loaded from SAT's files (the service holds the shipped edition or a newer one
/// it imported): c_ClaveProdServ, c_ClaveUnidad and c_CodigoPostal by name, and every other
/// catalog by its id (`"cfdi40/c_Pais"`, folder and file of SAT's CSV). Each method answers
/// `None` when the catalog is not loaded, and validation then reports the check as skipped.
/// The `_vigente` methods also check the entry is in force on the document's date.
pub trait Catalogos {
    /// Whether `clave` is in c_ClaveProdServ.
    fn clave_prod_serv(&self, _clave: &str) -> Option<bool> {
        None
    }
    /// The row of `clave` in c_ClaveProdServ, when loaded and known.
    fn datos_clave_prod_serv(&self, _clave: &str) -> Option<DatosClaveProdServ> {
        None
    }
    /// Whether `clave` is in c_ClaveProdServ and in force on `dia`.
    fn clave_prod_serv_vigente(&self, clave: &str, dia: Date) -> Option<bool> {
        let existe = self.clave_prod_serv(clave)?;
        Some(existe && self.datos_clave_prod_serv(clave).is_none_or(|datos| datos.vigencia.vigente(dia)))
    }
    /// Whether `clave` is in c_ClaveUnidad.
    fn clave_unidad(&self, _clave: &str) -> Option<bool> {
        None
    }
    /// When `clave` of c_ClaveUnidad may be used, when loaded and known.
    fn vigencia_clave_unidad(&self, _clave: &str) -> Option<Vigencia> {
        None
    }
    /// Whether `clave` is in c_ClaveUnidad and in force on `dia`.
    fn clave_unidad_vigente(&self, clave: &str, dia: Date) -> Option<bool> {
        let existe = self.clave_unidad(clave)?;
        Some(existe && self.vigencia_clave_unidad(clave).is_none_or(|vigencia| vigencia.vigente(dia)))
    }
    /// Whether `codigo` is in c_CodigoPostal.
    fn codigo_postal(&self, _codigo: &str) -> Option<bool> {
        None
    }
    /// The row of `codigo` in c_CodigoPostal (border stimulus, time zone), when loaded and known.
    fn datos_codigo_postal(&self, _codigo: &str) -> Option<DatosCodigoPostal> {
        None
    }
    /// The complement c_ClaveProdServ's `complemento` column names for `clave`: `None` when the
    /// catalog is not loaded, the code unknown or the column empty.
    fn complemento_clave_prod_serv(&self, _clave: &str) -> Option<String> {
        None
    }
    /// The columns of c_FormaPago's row `codigo` that tell which bank data a payment made that
    /// way may carry (Pagos 2.0), when c_FormaPago is loaded and knows the code.
    fn datos_forma_pago(&self, _codigo: &str) -> Option<DatosFormaPago> {
        None
    }
    /// The pattern c_Pais gives for the tax id of a resident of `pais` (column
    /// `patron_identidad_tributaria`, a regular expression): `None` when c_Pais is not loaded or
    /// gives none for the country (the check is then skipped).
    fn patron_num_reg_id_trib(&self, _pais: &str) -> Option<String> {
        None
    }
    /// Whether `clave` is in the catalog `catalogo` (`"cfdi40/c_Pais"`, `"nomina12/c_Banco"`).
    fn en_catalogo(&self, _catalogo: &str, _clave: &str) -> Option<bool> {
        None
    }
    /// Whether `clave` is in `catalogo` and in force on `dia`.
    fn vigente_en_catalogo(&self, catalogo: &str, clave: &str, _dia: Date) -> Option<bool> {
        self.en_catalogo(catalogo, clave)
    }
}

/// No large catalogs loaded: the corresponding checks are skipped.
#[derive(Clone, Copy, Debug, Default)]
pub struct SinCatalogos;

impl Catalogos for SinCatalogos {}

/// c_Moneda (ISO 4217 codes with SAT decimals and allowed variation).
pub const MONEDAS: &[Moneda] = &[
    Moneda { codigo: "AED", descripcion: "Dirham de EAU", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "AFN", descripcion: "Afghani", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ALL", descripcion: "Lek", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "AMD", descripcion: "Dram armenio", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ANG", descripcion: "Florín antillano neerlandés", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "AOA", descripcion: "Kwanza", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ARS", descripcion: "Peso Argentino", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "AUD", descripcion: "Dólar Australiano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "AWG", descripcion: "Aruba Florin", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "AZN", descripcion: "Azerbaijanian Manat", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BAM", descripcion: "Convertibles marca", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BBD", descripcion: "Dólar de Barbados", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BDT", descripcion: "Taka", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BGN", descripcion: "Lev búlgaro", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BHD", descripcion: "Dinar de Bahrein", decimales: 3, porcentaje_variacion: 5 },
    Moneda { codigo: "BIF", descripcion: "Burundi Franc", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "BMD", descripcion: "Dólar de Bermudas", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BND", descripcion: "Dólar de Brunei", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BOB", descripcion: "Boliviano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BOV", descripcion: "Mvdol", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BRL", descripcion: "Real brasileño", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BSD", descripcion: "Dólar de las Bahamas", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BTN", descripcion: "Ngultrum", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BWP", descripcion: "Pula", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "BYR", descripcion: "Rublo bielorruso", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "BZD", descripcion: "Dólar de Belice", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CAD", descripcion: "Dólar Canadiense", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CDF", descripcion: "Franco congoleño", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CHE", descripcion: "WIR Euro", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CHF", descripcion: "Franco Suizo", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CHW", descripcion: "Franc WIR", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CLF", descripcion: "Unidad de Fomento", decimales: 4, porcentaje_variacion: 5 },
    Moneda { codigo: "CLP", descripcion: "Peso chileno", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "CNH", descripcion: "Yuan extracontinental (China )", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CNY", descripcion: "Yuan Renminbi", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "COP", descripcion: "Peso Colombiano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "COU", descripcion: "Unidad de Valor real", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CRC", descripcion: "Colón costarricense", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CUC", descripcion: "Peso Convertible", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CUP", descripcion: "Peso Cubano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CVE", descripcion: "Cabo Verde Escudo", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "CZK", descripcion: "Corona checa", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "DJF", descripcion: "Franco de Djibouti", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "DKK", descripcion: "Corona danesa", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "DOP", descripcion: "Peso Dominicano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "DZD", descripcion: "Dinar argelino", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "EGP", descripcion: "Libra egipcia", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ERN", descripcion: "Nakfa", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ESD", descripcion: "Dólar de Ecuador", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ETB", descripcion: "Birr etíope", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "EUR", descripcion: "Euro", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "FJD", descripcion: "Dólar de Fiji", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "FKP", descripcion: "Libra malvinense", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "GBP", descripcion: "Libra Esterlina", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "GEL", descripcion: "Lari", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "GHS", descripcion: "Cedi de Ghana", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "GIP", descripcion: "Libra de Gibraltar", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "GMD", descripcion: "Dalasi", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "GNF", descripcion: "Franco guineano", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "GTQ", descripcion: "Quetzal", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "GYD", descripcion: "Dólar guyanés", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "HKD", descripcion: "Dólar De Hong Kong", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "HNL", descripcion: "Lempira", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "HRK", descripcion: "Kuna", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "HTG", descripcion: "Gourde", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "HUF", descripcion: "Florín", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "IDR", descripcion: "Rupia", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ILS", descripcion: "Nuevo Shekel Israelí", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "INR", descripcion: "Rupia india", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "IQD", descripcion: "Dinar iraquí", decimales: 3, porcentaje_variacion: 5 },
    Moneda { codigo: "IRR", descripcion: "Rial iraní", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ISK", descripcion: "Corona islandesa", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "JMD", descripcion: "Dólar Jamaiquino", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "JOD", descripcion: "Dinar jordano", decimales: 3, porcentaje_variacion: 5 },
    Moneda { codigo: "JPY", descripcion: "Yen", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "KES", descripcion: "Chelín keniano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "KGS", descripcion: "Som", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "KHR", descripcion: "Riel", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "KMF", descripcion: "Franco Comoro", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "KPW", descripcion: "Corea del Norte ganó", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "KRW", descripcion: "Won", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "KWD", descripcion: "Dinar kuwaití", decimales: 3, porcentaje_variacion: 5 },
    Moneda { codigo: "KYD", descripcion: "Dólar de las Islas Caimán", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "KZT", descripcion: "Tenge", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "LAK", descripcion: "Kip", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "LBP", descripcion: "Libra libanesa", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "LKR", descripcion: "Rupia de Sri Lanka", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "LRD", descripcion: "Dólar liberiano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "LSL", descripcion: "Loti", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "LYD", descripcion: "Dinar libio", decimales: 3, porcentaje_variacion: 5 },
    Moneda { codigo: "MAD", descripcion: "Dirham marroquí", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MDL", descripcion: "Leu moldavo", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MGA", descripcion: "Ariary malgache", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MKD", descripcion: "Denar", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MMK", descripcion: "Kyat", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MNT", descripcion: "Tugrik", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MOP", descripcion: "Pataca", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MRO", descripcion: "Ouguiya", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MUR", descripcion: "Rupia de Mauricio", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MVR", descripcion: "Rupia", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MWK", descripcion: "Kwacha", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MXN", descripcion: "Peso Mexicano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MXV", descripcion: "México Unidad de Inversión (UDI)", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MYR", descripcion: "Ringgit malayo", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "MZN", descripcion: "Mozambique Metical", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "NAD", descripcion: "Dólar de Namibia", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "NGN", descripcion: "Naira", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "NIC", descripcion: "Córdoba (Nicaragua)", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "NIO", descripcion: "Córdoba Oro", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "NOK", descripcion: "Corona noruega", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "NPR", descripcion: "Rupia nepalí", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "NZD", descripcion: "Dólar de Nueva Zelanda", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "OMR", descripcion: "Rial omaní", decimales: 3, porcentaje_variacion: 5 },
    Moneda { codigo: "PAB", descripcion: "Balboa", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "PEN", descripcion: "Nuevo Sol", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "PGK", descripcion: "Kina", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "PHP", descripcion: "Peso filipino", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "PKR", descripcion: "Rupia de Pakistán", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "PLN", descripcion: "Zloty", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "PYG", descripcion: "Guaraní", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "QAR", descripcion: "Qatar Rial", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "RON", descripcion: "Leu rumano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "RSD", descripcion: "Dinar serbio", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "RUB", descripcion: "Rublo ruso", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "RWF", descripcion: "Franco ruandés", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "SAR", descripcion: "Riyal saudí", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SBD", descripcion: "Dólar de las Islas Salomón", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SCR", descripcion: "Rupia de Seychelles", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SDG", descripcion: "Libra sudanesa", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SEK", descripcion: "Corona sueca", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SGD", descripcion: "Dólar De Singapur", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SHP", descripcion: "Libra de Santa Helena", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SLL", descripcion: "Leona", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SOS", descripcion: "Chelín somalí", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SRD", descripcion: "Dólar de Suriname", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SSP", descripcion: "Libra sudanesa Sur", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "STD", descripcion: "Dobra", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SVC", descripcion: "Colon El Salvador", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SYP", descripcion: "Libra Siria", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "SZL", descripcion: "Lilangeni", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "THB", descripcion: "Baht", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "TJS", descripcion: "Somoni", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "TMT", descripcion: "Turkmenistán nuevo manat", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "TND", descripcion: "Dinar tunecino", decimales: 3, porcentaje_variacion: 5 },
    Moneda { codigo: "TOP", descripcion: "Pa'anga", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "TRY", descripcion: "Lira turca", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "TTD", descripcion: "Dólar de Trinidad y Tobago", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "TWD", descripcion: "Nuevo dólar de Taiwán", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "TZS", descripcion: "Shilling tanzano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "UAH", descripcion: "Hryvnia", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "UGX", descripcion: "Shilling de Uganda", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "USD", descripcion: "Dólar americano", decimales: 2, porcentaje_variacion: 5 },
    Moneda {
        codigo: "USN",
        descripcion: "Dólar estadounidense (día siguiente)",
        decimales: 2,
        porcentaje_variacion: 5,
    },
    Moneda {
        codigo: "UYI",
        descripcion: "Peso Uruguay en Unidades Indexadas (URUIURUI)",
        decimales: 0,
        porcentaje_variacion: 5,
    },
    Moneda { codigo: "UYP", descripcion: "Uruguay (Peso)", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "UYU", descripcion: "Peso Uruguayo", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "UZS", descripcion: "Uzbekistán Sum", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "VEF", descripcion: "Bolívar", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "VES", descripcion: "Bolívar digital  (Venezuela)", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "VND", descripcion: "Dong", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "VUV", descripcion: "Vatu", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "WST", descripcion: "Tala", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "XAF", descripcion: "Franco CFA BEAC", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "XAG", descripcion: "Plata", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "XAU", descripcion: "Oro", decimales: 0, porcentaje_variacion: 5 },
    Moneda {
        codigo: "XBA",
        descripcion: "Unidad de Mercados de Bonos Unidad Europea Composite (EURCO)",
        decimales: 0,
        porcentaje_variacion: 5,
    },
    Moneda {
        codigo: "XBB",
        descripcion: "Unidad Monetaria de Bonos de Mercados Unidad Europea (UEM-6)",
        decimales: 0,
        porcentaje_variacion: 5,
    },
    Moneda {
        codigo: "XBC",
        descripcion: "Mercados de Bonos Unidad Europea unidad de cuenta a 9 (UCE-9)",
        decimales: 0,
        porcentaje_variacion: 5,
    },
    Moneda {
        codigo: "XBD",
        descripcion: "Mercados de Bonos Unidad Europea unidad de cuenta a 17 (UCE-17)",
        decimales: 0,
        porcentaje_variacion: 5,
    },
    Moneda { codigo: "XCD", descripcion: "Dólar del Caribe Oriental", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "XDR", descripcion: "DEG (Derechos Especiales de Giro)", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "XOF", descripcion: "Franco CFA BCEAO", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "XPD", descripcion: "Paladio", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "XPF", descripcion: "Franco CFP", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "XPT", descripcion: "Platino", decimales: 0, porcentaje_variacion: 5 },
    Moneda { codigo: "XSU", descripcion: "Sucre", decimales: 0, porcentaje_variacion: 5 },
    Moneda {
        codigo: "XTS",
        descripcion: "Códigos reservados específicamente para propósitos de prueba",
        decimales: 0,
        porcentaje_variacion: 0,
    },
    Moneda { codigo: "XUA", descripcion: "Unidad ADB de Cuenta", decimales: 0, porcentaje_variacion: 5 },
    Moneda {
        codigo: "XXX",
        descripcion: "Los códigos asignados para las transacciones en que intervenga ninguna moneda",
        decimales: 0,
        porcentaje_variacion: 0,
    },
    Moneda { codigo: "YER", descripcion: "Rial yemení", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ZAR", descripcion: "Rand", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ZMW", descripcion: "Kwacha zambiano", decimales: 2, porcentaje_variacion: 5 },
    Moneda { codigo: "ZWL", descripcion: "Zimbabwe Dólar", decimales: 2, porcentaje_variacion: 5 },
];

/// The Mexican entries of c_Estado (the catalog also lists states of the United States and
/// Canada): the codes a domicilio in Mexico (`Pais` MEX) may carry.
pub const ESTADOS_MEXICO: &[&str] = &[
    "AGU", "BCN", "BCS", "CAM", "CHP", "CHH", "COA", "COL", "DIF", "CMX", "DUR", "GUA", "GRO", "HID", "JAL", "MEX",
    "MIC", "MOR", "NAY", "NLE", "OAX", "PUE", "QUE", "ROO", "SLP", "SIN", "SON", "TAB", "TAM", "TLA", "VER", "YUC",
    "ZAC",
];

#[cfg(test)]
mod pruebas_huso {
    use super::HusoHorario;
    use time::macros::{datetime, offset};

    /// The 2026 changes of the border strip: 8 March and 1 November, at 2:00 local time.
    #[test]
    fn la_frontera_cambia_de_horario_y_el_resto_no() {
        let tijuana = HusoHorario::Noroeste;
        assert_eq!(tijuana.desfase(datetime!(2026-01-15 12:00 UTC)), offset!(-8));
        // 2026-03-08 01:59:59 PST is 09:59:59 UTC; at 10:00 UTC it is 03:00 PDT.
        assert_eq!(tijuana.desfase(datetime!(2026-03-08 09:59:59 UTC)), offset!(-8));
        assert_eq!(tijuana.desfase(datetime!(2026-03-08 10:00 UTC)), offset!(-7));
        // 2026-11-01 01:59:59 PDT is 08:59:59 UTC; at 09:00 UTC it is 01:00 PST again.
        assert_eq!(tijuana.desfase(datetime!(2026-11-01 08:59:59 UTC)), offset!(-7));
        assert_eq!(tijuana.desfase(datetime!(2026-11-01 09:00 UTC)), offset!(-8));
        let matamoros = HusoHorario::CentroEnFrontera;
        assert_eq!(matamoros.desfase(datetime!(2026-03-08 07:59:59 UTC)), offset!(-6));
        assert_eq!(matamoros.desfase(datetime!(2026-03-08 08:00 UTC)), offset!(-5));
        assert_eq!(matamoros.desfase(datetime!(2026-07-01 12:00 UTC)), offset!(-5));
        assert_eq!(matamoros.desfase(datetime!(2026-11-01 07:00 UTC)), offset!(-6));
        // The rest of the country keeps one offset all year since 2022.
        for at in [datetime!(2026-01-15 12:00 UTC), datetime!(2026-07-01 12:00 UTC)] {
            assert_eq!(HusoHorario::Centro.desfase(at), offset!(-6));
            assert_eq!(HusoHorario::Pacifico.desfase(at), offset!(-7));
            assert_eq!(HusoHorario::Sureste.desfase(at), offset!(-5));
        }
    }
}
