//! The catalogs a CFDI de Retenciones 2.0 uses, written as Rust from SAT's schemas:
//! `catRetenciones.xsd` (c_CveRetenc, c_TipoPagoRet, c_Periodo, c_Ejercicio, c_Periodicidad,
//! c_TipoImpuesto, c_EntidadesFederativas), `CatPlataformasTecnologicas.xsd` (c_TipoDeServ,
//! c_SubTipoServ, c_FormaPagoServ, c_TasaCuota) and the catCFDI codes retencionpagov2.xsd
//! borrows (c_TipoRelacion, c_RegimenFiscal; c_Impuesto is [`Impuesto`] of timbra-cfdi).
//!
//! Every enum carries SAT's exact code. CatPlataformasTecnologicas.xsd carries codes only, so
//! c_TipoDeServ, c_SubTipoServ and c_FormaPagoServ are named by their codes. A unit test reads the XSDs in `shared/sat` and
//! proves each enum has exactly the schema's codes.

pub use timbra_cfdi::catalogos::Impuesto;

use timbra_cfdi::catalogo;

catalogo! {
    /// c_CveRetenc: the kind of retention or payment information the document covers.
    CveRetenc {
        ServiciosProfesionales = "01", "Servicios profesionales";
        RegaliasDerechosDeAutor = "02", "Regalías por derechos de autor";
        AutotransporteTerrestreDeCarga = "03", "Autotransporte terrestre de carga";
        ServiciosDeComisionistas = "04", "Servicios prestados por comisionistas";
        Arrendamiento = "05", "Arrendamiento";
        EnajenacionDeAcciones = "06", "Enajenación de acciones";
        EnajenacionBienesLieps = "07", "Enajenación de bienes objeto de la LIEPS, a través de mediadores, agentes, representantes, corredores, consignatarios o distribuidores";
        EnajenacionInmueblesEscritura = "08", "Enajenación de bienes inmuebles consignada en escritura pública";
        EnajenacionOtrosBienes = "09", "Enajenación de otros bienes, no consignada en escritura pública";
        AdquisicionDesperdiciosIndustriales = "10", "Adquisición de desperdicios industriales";
        AdquisicionBienesEscritura = "11", "Adquisición de bienes consignada en escritura pública";
        AdquisicionOtrosBienes = "12", "Adquisición de otros bienes, no consignada en escritura pública";
        OtrosRetirosAfore = "13", "Otros retiros de AFORE";
        Dividendos = "14", "Dividendos o utilidades distribuidas";
        RemanenteDistribuible = "15", "Remanente distribuible";
        Intereses = "16", "Intereses";
        ArrendamientoEnFideicomiso = "17", "Arrendamiento en fideicomiso";
        PagosAExtranjeros = "18", "Pagos realizados a favor de residentes en el extranjero";
        EnajenacionAccionesBolsa = "19", "Enajenación de acciones u operaciones en bolsa de valores";
        Premios = "20", "Obtención de premios";
        FideicomisosNoEmpresariales = "21", "Fideicomisos que no realizan actividades empresariales";
        PlanesPersonalesDeRetiro = "22", "Planes personales de retiro";
        InteresesHipotecarios = "23", "Intereses reales deducibles por créditos hipotecarios";
        OperacionesDerivadas = "24", "Operaciones Financieras Derivadas de Capital";
        Otro = "25", "Otro tipo de retenciones";
        PlataformasTecnologicas = "26", "Servicios mediante Plataformas Tecnológicas";
        SectorFinanciero = "27", "Sector Financiero";
        ContribuyentesRif = "28", "Pagos y retenciones a Contribuyentes del RIF";
    }
}

catalogo! {
    /// c_TipoPagoRet: the effect given to the amount withheld.
    TipoPagoRet {
        PagoDefinitivoIva = "01", "Pago definitivo IVA";
        PagoDefinitivoIeps = "02", "Pago definitivo IEPS";
        PagoDefinitivoIsr = "03", "Pago definitivo ISR";
        PagoProvisionalIsr = "04", "Pago provisional ISR";
    }
}

catalogo! {
    /// c_Periodo: the months of `Periodo/@MesIni` and `@MesFin`.
    Mes {
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
    }
}

impl Mes {
    /// The month number, 1 to 12.
    pub fn numero(self) -> u8 {
        // The codes are two ASCII digits.
        self.codigo().parse().unwrap_or(0)
    }

    /// The month `1..=12`.
    pub fn desde_numero(numero: u8) -> Option<Self> {
        Self::TODOS.get(usize::from(numero).checked_sub(1)?).copied()
    }
}

/// c_Ejercicio: the fiscal years catRetenciones.xsd lists (2019 to 2027).
pub const EJERCICIOS: std::ops::RangeInclusive<u16> = 2019..=2027;

catalogo! {
    /// c_TipoRelacion (catCFDI) as retencionpagov2.xsd uses it for `CfdiRetenRelacionados`.
    TipoRelacion {
        NotaDeCredito = "01", "Nota de crédito de los documentos relacionados";
        NotaDeDebito = "02", "Nota de débito de los documentos relacionados";
        DevolucionDeMercancia = "03", "Devolución de mercancía sobre facturas o traslados previos";
        Sustitucion = "04", "Sustitución de los CFDI previos";
        TrasladosFacturadosPreviamente = "05", "Traslados de mercancías facturados previamente";
        FacturaPorTrasladosPrevios = "06", "Factura generada por los traslados previos";
        AplicacionDeAnticipo = "07", "CFDI por aplicación de anticipo";
        PagosEnParcialidades = "08", "Factura generada por pagos en parcialidades";
        PagosDiferidos = "09", "Factura generada por pagos diferidos";
    }
}

catalogo! {
    /// c_RegimenFiscal (catCFDI) with every code of the schema, for `Emisor/@RegimenFiscalE`.
    RegimenFiscal {
        GeneralPersonasMorales = "601", "General de Ley Personas Morales";
        MoralesSinFinesDeLucro = "603", "Personas Morales con Fines no Lucrativos";
        SueldosYSalarios = "605", "Sueldos y Salarios e Ingresos Asimilados a Salarios";
        Arrendamiento = "606", "Arrendamiento";
        EnajenacionDeBienes = "607", "Régimen de Enajenación o Adquisición de Bienes";
        DemasIngresos = "608", "Demás ingresos";
        Consolidacion = "609", "Consolidación";
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
        Hidrocarburos = "628", "Hidrocarburos";
        RegimenesPreferentes = "629", "De los Regímenes Fiscales Preferentes y de las Empresas Multinacionales";
        EnajenacionAccionesBolsa = "630", "Enajenación de acciones en bolsa de valores";
    }
}

catalogo! {
    /// c_Periodicidad (catRetenciones): the period of the Plataformas Tecnológicas withholding.
    Periodicidad {
        Diario = "01", "Diario";
        Semanal = "02", "Semanal";
        Quincenal = "03", "Quincenal";
        Mensual = "04", "Mensual";
        Bimestral = "05", "Bimestral";
    }
}

catalogo! {
    /// c_TipoImpuesto (catRetenciones): the tax transferred on a Plataformas Tecnológicas
    /// service.
    TipoImpuesto {
        Isr = "01", "ISR";
        Iva = "02", "IVA";
        Ieps = "03", "IEPS";
    }
}

catalogo! {
    /// c_EntidadesFederativas (catRetenciones): where a contribución gubernamental is paid.
    EntidadFederativa {
        Aguascalientes = "01", "Aguascalientes";
        BajaCalifornia = "02", "Baja California";
        BajaCaliforniaSur = "03", "Baja California Sur";
        Campeche = "04", "Campeche";
        Coahuila = "05", "Coahuila de Zaragoza";
        Colima = "06", "Colima";
        Chiapas = "07", "Chiapas";
        Chihuahua = "08", "Chihuahua";
        CiudadDeMexico = "09", "Ciudad de México";
        Durango = "10", "Durango";
        Guanajuato = "11", "Guanajuato";
        Guerrero = "12", "Guerrero";
        Hidalgo = "13", "Hidalgo";
        Jalisco = "14", "Jalisco";
        Mexico = "15", "México";
        Michoacan = "16", "Michoacán de Ocampo";
        Morelos = "17", "Morelos";
        Nayarit = "18", "Nayarit";
        NuevoLeon = "19", "Nuevo León";
        Oaxaca = "20", "Oaxaca";
        Puebla = "21", "Puebla";
        Queretaro = "22", "Querétaro";
        QuintanaRoo = "23", "Quintana Roo";
        SanLuisPotosi = "24", "San Luis Potosí";
        Sinaloa = "25", "Sinaloa";
        Sonora = "26", "Sonora";
        Tabasco = "27", "Tabasco";
        Tamaulipas = "28", "Tamaulipas";
        Tlaxcala = "29", "Tlaxcala";
        Veracruz = "30", "Veracruz de Ignacio de la Llave";
        Yucatan = "31", "Yucatán";
        Zacatecas = "32", "Zacatecas";
    }
}

catalogo! {
    /// c_TipoDeServ (CatPlataformasTecnologicas): the service rendered or goods sold through
    /// the platform.
    TipoDeServ {
        Clave01 = "01", "Clave 01 de c_TipoDeServ";
        Clave02 = "02", "Clave 02 de c_TipoDeServ";
        Clave03 = "03", "Clave 03 de c_TipoDeServ";
        Clave04 = "04", "Clave 04 de c_TipoDeServ";
        Clave05 = "05", "Clave 05 de c_TipoDeServ";
        Clave06 = "06", "Clave 06 de c_TipoDeServ";
        Clave07 = "07", "Clave 07 de c_TipoDeServ";
        Clave08 = "08", "Clave 08 de c_TipoDeServ";
        Clave09 = "09", "Clave 09 de c_TipoDeServ";
        Clave11 = "11", "Clave 11 de c_TipoDeServ";
    }
}

catalogo! {
    /// c_SubTipoServ (CatPlataformasTecnologicas): the subtype of the service.
    SubTipoServ {
        Clave01 = "01", "Clave 01 de c_SubTipoServ";
        Clave02 = "02", "Clave 02 de c_SubTipoServ";
        Clave03 = "03", "Clave 03 de c_SubTipoServ";
        Clave04 = "04", "Clave 04 de c_SubTipoServ";
        Clave08 = "08", "Clave 08 de c_SubTipoServ";
        Clave09 = "09", "Clave 09 de c_SubTipoServ";
    }
}

catalogo! {
    /// c_FormaPagoServ (CatPlataformasTecnologicas): how the customer paid the service.
    FormaPagoServ {
        Clave01 = "01", "Clave 01 de c_FormaPagoServ";
        Clave02 = "02", "Clave 02 de c_FormaPagoServ";
        Clave03 = "03", "Clave 03 de c_FormaPagoServ";
        Clave04 = "04", "Clave 04 de c_FormaPagoServ";
        Clave05 = "05", "Clave 05 de c_FormaPagoServ";
        Clave06 = "06", "Clave 06 de c_FormaPagoServ";
        Clave07 = "07", "Clave 07 de c_FormaPagoServ";
        Clave08 = "08", "Clave 08 de c_FormaPagoServ";
        Clave09 = "09", "Clave 09 de c_FormaPagoServ";
    }
}

catalogo! {
    /// c_TasaCuota (CatPlataformasTecnologicas): the rates of `ImpuestosTrasladadosdelServicio`,
    /// written with six decimals as the catalog lists them.
    TasaCuota {
        Iva16 = "0.160000", "16%";
        Iva8 = "0.080000", "8% (región fronteriza)";
        Cero = "0.000000", "0%";
        Cincuenta = "0.500000", "50%";
    }
}

impl TasaCuota {
    /// The rate as a decimal.
    pub fn valor(self) -> rust_decimal::Decimal {
        // The codes are decimal literals.
        self.codigo().parse().unwrap_or_default()
    }

    /// The entry whose value equals `valor` (`0.16` and `0.160000` are the same rate: the
    /// schema's enumeration is of `xs:decimal`).
    pub fn desde_valor(valor: rust_decimal::Decimal) -> Option<Self> {
        Self::TODOS.iter().copied().find(|tasa| tasa.valor() == valor)
    }
}
