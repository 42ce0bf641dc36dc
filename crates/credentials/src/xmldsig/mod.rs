//! XMLDSig for SAT: the signed documents of SAT's web services and the
//! cancellation request, and a verifier for them (used by simulators).
//!
//! | document | signer | c14n | signature | reference |
//! |---|---|---|---|---|
//! | [`sign_autenticacion`]: descarga masiva `Autentica` (PROTOCOLS §1.2) | FIEL | exclusive | rsa-sha1 | `#_0`, the WS-Security `u:Timestamp` |
//! | [`sign_descarga`]: `SolicitaDescarga*`, `VerificaSolicitudDescarga`, `PeticionDescargaMasivaTercerosEntrada` (§1.4–1.6) | FIEL | exclusive | rsa-sha1 | `""`, digest over the operation element alone, no enveloped transform (phpcfdi's form) |
//! | [`sign_cancelacion`]: `Cancelacion` (§2.4) | CSD | inclusive | rsa-sha1 | `""` with the enveloped-signature transform |
//! | [`sign_enveloped_csd`]: any other document of the cancellation service (the receiver's `SolicitudAceptacionRechazo`) | CSD | inclusive | rsa-sha1 | `""` with the enveloped-signature transform |
//!
//! Canonicalization is hand-written for these templates; its limits are listed
//! in the `c14n` module: no DTD, comments and PIs dropped, only predefined
//! entities, no `xml:*` attribute inheritance, no `InclusiveNamespaces`.

mod c14n;

use base64::Engine as _;
use time::OffsetDateTime;

pub use c14n::C14n;
use c14n::{Element, Node, Scope};

use crate::{Certificate, CertificateKind, Credential, Error};

/// XMLDSig namespace.
pub const NS_DSIG: &str = "http://www.w3.org/2000/09/xmldsig#";
/// Exclusive XML Canonicalization 1.0 (without comments).
pub const ALG_EXC_C14N: &str = "http://www.w3.org/2001/10/xml-exc-c14n#";
/// Canonical XML 1.0 (inclusive, without comments).
pub const ALG_C14N: &str = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315";
/// Enveloped-signature transform.
pub const ALG_ENVELOPED: &str = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
/// RSA PKCS#1 v1.5 with SHA-1.
pub const ALG_RSA_SHA1: &str = "http://www.w3.org/2000/09/xmldsig#rsa-sha1";
/// RSA PKCS#1 v1.5 with SHA-256.
pub const ALG_RSA_SHA256: &str = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
/// SHA-1 digest.
pub const ALG_SHA1: &str = "http://www.w3.org/2000/09/xmldsig#sha1";
/// SHA-256 digest.
pub const ALG_SHA256: &str = "http://www.w3.org/2001/04/xmlenc#sha256";

/// SOAP 1.1 envelope namespace.
pub const NS_SOAP: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// WS-Security utility namespace (`u:`).
pub const NS_WSU: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
/// WS-Security extension namespace (`o:`).
pub const NS_WSSE: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
/// Descarga masiva namespace of the authentication service (no `.sat`).
pub const NS_DESCARGA_AUTH: &str = "http://DescargaMasivaTerceros.gob.mx";
/// Descarga masiva namespace of the other services.
pub const NS_DESCARGA: &str = "http://DescargaMasivaTerceros.sat.gob.mx";
/// Cancellation request namespace.
pub const NS_CANCELACION: &str = "http://cancelacfd.sat.gob.mx";
/// Namespace of the cancellation request of a CFDI de Retenciones: SAT's retention service
/// kept the one of Retenciones 1.0 (phpcfdi/xml-cancelacion, `DocumentType::retention`).
pub const NS_CANCELACION_RETENCIONES: &str = "http://www.sat.gob.mx/esquemas/retencionpago/1";

const X509_TOKEN_TYPE: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3";
const BASE64_ENCODING_TYPE: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary";
const NS_XSD: &str = "http://www.w3.org/2001/XMLSchema";
const NS_XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

fn base64_encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn sha1_base64(bytes: &[u8]) -> String {
    base64_encode(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY, bytes).as_ref())
}

fn require_kind(credential: &Credential, wanted: CertificateKind) -> Result<(), Error> {
    let found = credential.certificate().kind();
    match wanted {
        CertificateKind::Csd if found != CertificateKind::Csd => Err(Error::ExpectedCsd { found }),
        CertificateKind::Fiel if found != CertificateKind::Fiel => Err(Error::ExpectedFiel { found }),
        _ => Ok(()),
    }
}

/// `SignedInfo` with one reference, rsa-sha1 and sha1.
fn signed_info(c14n_uri: &str, reference_uri: &str, transforms: &[&str], digest: &str) -> Element {
    let mut transforms_element = Element::new("Transforms");
    for transform in transforms {
        transforms_element = transforms_element.child(Element::new("Transform").attribute("Algorithm", transform));
    }
    Element::new("SignedInfo")
        .child(Element::new("CanonicalizationMethod").attribute("Algorithm", c14n_uri))
        .child(Element::new("SignatureMethod").attribute("Algorithm", ALG_RSA_SHA1))
        .child(
            Element::new("Reference")
                .attribute("URI", reference_uri)
                .child(transforms_element)
                .child(Element::new("DigestMethod").attribute("Algorithm", ALG_SHA1))
                .child(Element::new("DigestValue").text(digest)),
        )
}

/// `Signature` whose `SignedInfo` is signed as it sits under `outer_scope`
/// (the scope around the `Signature` element).
fn signature(
    credential: &Credential,
    outer_scope: &Scope,
    mode: C14n,
    signed_info: Element,
    key_info: Element,
) -> Result<Element, Error> {
    let signature_element = Element::new("Signature").namespace("", NS_DSIG);
    let inside_signature = signature_element.scope_inside(outer_scope);
    let canonical = c14n::canonicalize(&signed_info, &inside_signature, mode, None);
    let value = base64_encode(&credential.sign_sha1(canonical.as_bytes())?);
    Ok(signature_element.child(signed_info).child(Element::new("SignatureValue").text(&value)).child(key_info))
}

/// `KeyInfo/X509Data` with issuer, decimal serial and the certificate.
fn x509_key_info(certificate: &Certificate, with_key_value: bool) -> Element {
    let mut key_info = Element::new("KeyInfo").child(
        Element::new("X509Data")
            .child(
                Element::new("X509IssuerSerial")
                    .child(Element::new("X509IssuerName").text(certificate.issuer_name()))
                    .child(Element::new("X509SerialNumber").text(certificate.serial_number_decimal())),
            )
            .child(Element::new("X509Certificate").text(&certificate.base64())),
    );
    if with_key_value {
        key_info = key_info.child(
            Element::new("KeyValue").child(
                Element::new("RSAKeyValue")
                    .child(Element::new("Modulus").text(&base64_encode(certificate.rsa_modulus())))
                    .child(Element::new("Exponent").text(&base64_encode(certificate.rsa_exponent()))),
            ),
        );
    }
    key_info
}

fn document(root: &Element, declaration: bool) -> String {
    let mut out = String::new();
    if declaration {
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    }
    c14n::serialize(root, &mut out);
    out
}

/// One UUID to cancel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelacionFolio {
    /// Folio fiscal (UUID) of the CFDI to cancel.
    pub uuid: String,
    /// `c_MotivoCancelacion` code: `01`, `02`, `03` or `04`.
    pub motivo: String,
    /// UUID of the replacing CFDI (required by motivo `01`).
    pub folio_sustitucion: Option<String>,
}

/// The signed `Cancelacion` document of PROTOCOLS §2.4: inclusive C14N,
/// enveloped-signature transform, rsa-sha1, `KeyInfo` with `X509IssuerSerial`
/// (decimal serial), `X509Certificate` and `RSAKeyValue`.
///
/// `fecha` is local time without zone (`2022-01-06T17:49:12`). The caller
/// checks that `rfc_emisor` is the certificate's RFC.
///
/// # Errors
/// [`Error::ExpectedCsd`] unless `credential` is a CSD; [`Error::SigningFailed`].
pub fn sign_cancelacion(
    credential: &Credential,
    rfc_emisor: &str,
    fecha: &str,
    folios: &[CancelacionFolio],
) -> Result<String, Error> {
    sign_cancelacion_en(credential, NS_CANCELACION, rfc_emisor, fecha, folios)
}

/// [`sign_cancelacion`] in namespace `ns`: [`NS_CANCELACION`] for a CFDI,
/// [`NS_CANCELACION_RETENCIONES`] for a CFDI de Retenciones (same shape, same signature).
///
/// # Errors
/// As [`sign_cancelacion`].
pub fn sign_cancelacion_en(
    credential: &Credential,
    ns: &str,
    rfc_emisor: &str,
    fecha: &str,
    folios: &[CancelacionFolio],
) -> Result<String, Error> {
    require_kind(credential, CertificateKind::Csd)?;
    let mut root = Element::new("Cancelacion")
        .namespace("", ns)
        .namespace("xsd", NS_XSD)
        .namespace("xsi", NS_XSI)
        .attribute("Fecha", fecha)
        .attribute("RfcEmisor", rfc_emisor);
    for folio in folios {
        let mut folio_element = Element::new("Folio");
        if let Some(replacement) = &folio.folio_sustitucion {
            folio_element = folio_element.attribute("FolioSustitucion", replacement);
        }
        folio_element = folio_element.attribute("Motivo", &folio.motivo).attribute("UUID", &folio.uuid);
        root = root.child(Element::new("Folios").child(folio_element));
    }
    sign_enveloped(credential, root)
}

/// Any other document of SAT's cancellation service signed the way [`sign_cancelacion`]
/// signs `Cancelacion` (the receiver's `SolicitudAceptacionRechazo`, for instance): the
/// unsigned document, written in canonical form (namespace declarations on the root,
/// attributes sorted, no whitespace between elements), gets an enveloped `Signature` as
/// the root's last child: inclusive C14N, rsa-sha1, sha1, `KeyInfo` with
/// `X509IssuerSerial`, `X509Certificate` and `RSAKeyValue`.
///
/// # Errors
/// [`Error::ExpectedCsd`] unless `credential` is a CSD; [`Error::Xml`] for malformed or
/// already signed XML; [`Error::SigningFailed`].
pub fn sign_enveloped_csd(credential: &Credential, unsigned_xml: &str) -> Result<String, Error> {
    require_kind(credential, CertificateKind::Csd)?;
    let root = c14n::parse(unsigned_xml)?;
    if find_signature(&root, &Scope::new(), &mut Vec::new()) {
        return Err(Error::Xml("the document is already signed".into()));
    }
    sign_enveloped(credential, root)
}

/// Appends the enveloped signature of PROTOCOLS §2.4 to `root` and writes the document.
fn sign_enveloped(credential: &Credential, root: Element) -> Result<String, Error> {
    let empty = Scope::new();
    let digest = sha1_base64(c14n::canonicalize(&root, &empty, C14n::Inclusive, None).as_bytes());
    let info = signed_info(ALG_C14N, "", &[ALG_ENVELOPED], &digest);
    let root_scope = root.scope_inside(&empty);
    let key_info = x509_key_info(credential.certificate(), true);
    let signature_element = signature(credential, &root_scope, C14n::Inclusive, info, key_info)?;
    Ok(document(&root.child(signature_element), true))
}

/// The SOAP envelope of the descarga masiva `Autentica` request (PROTOCOLS
/// §1.2): WS-Security header with `u:Timestamp u:Id="_0"`, the FIEL as
/// `BinarySecurityToken u:Id="{token_id}"`, and an exclusive-C14N rsa-sha1
/// signature over the timestamp. Times are written in UTC with milliseconds
/// (`2019-08-01T03:38:19.000Z`); SAT clients send `expires = created + 5 min`.
///
/// # Errors
/// [`Error::ExpectedFiel`] unless `credential` is a FIEL; [`Error::SigningFailed`].
pub fn sign_autenticacion(
    credential: &Credential,
    created: OffsetDateTime,
    expires: OffsetDateTime,
    token_id: &str,
) -> Result<String, Error> {
    require_kind(credential, CertificateKind::Fiel)?;
    let timestamp = Element::new("u:Timestamp")
        .attribute("u:Id", "_0")
        .child(Element::new("u:Created").text(&wsu_time(created)))
        .child(Element::new("u:Expires").text(&wsu_time(expires)));
    let envelope_scope =
        Element::new("s:Envelope").namespace("s", NS_SOAP).namespace("u", NS_WSU).scope_inside(&Scope::new());
    let security_element = Element::new("o:Security").namespace("o", NS_WSSE).attribute("s:mustUnderstand", "1");
    // Scopes where the Timestamp and the Signature sit: Envelope > Header > Security.
    let security_scope = security_element.scope_inside(&envelope_scope);
    let digest = sha1_base64(c14n::canonicalize(&timestamp, &security_scope, C14n::Exclusive, None).as_bytes());
    let info = signed_info(ALG_EXC_C14N, "#_0", &[ALG_EXC_C14N], &digest);
    let key_info = Element::new("KeyInfo").child(Element::new("o:SecurityTokenReference").child(
        Element::new("o:Reference").attribute("URI", &format!("#{token_id}")).attribute("ValueType", X509_TOKEN_TYPE),
    ));
    let signature_element = signature(credential, &security_scope, C14n::Exclusive, info, key_info)?;
    let token = Element::new("o:BinarySecurityToken")
        .attribute("u:Id", token_id)
        .attribute("ValueType", X509_TOKEN_TYPE)
        .attribute("EncodingType", BASE64_ENCODING_TYPE)
        .text(&credential.certificate().base64());
    let envelope = Element::new("s:Envelope")
        .namespace("s", NS_SOAP)
        .namespace("u", NS_WSU)
        .child(Element::new("s:Header").child(security_element.child(timestamp).child(token).child(signature_element)))
        .child(Element::new("s:Body").child(Element::new("Autentica").namespace("", NS_DESCARGA_AUTH)));
    Ok(document(&envelope, false))
}

/// A WS-Security `u:Created`/`u:Expires` value: UTC with milliseconds
/// (`2019-08-01T03:38:19.000Z`), as SAT writes and reads them.
pub fn wsu_time(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}

/// A descarga masiva request to sign (PROTOCOLS §1.4–1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescargaRequest<'a> {
    /// Operation element, e.g. `SolicitaDescargaEmitidos`, `SolicitaDescargaRecibidos`,
    /// `SolicitaDescargaFolio`, `VerificaSolicitudDescarga`, `PeticionDescargaMasivaTercerosEntrada`.
    pub operation: &'a str,
    /// Its child: `solicitud`, or `peticionDescarga` for the download.
    pub child: &'a str,
    /// Attributes of the child (empty values are left out; written sorted).
    pub attributes: &'a [(&'a str, &'a str)],
    /// `des:RfcReceptores/des:RfcReceptor` values (SolicitaDescargaEmitidos only).
    pub rfc_receptores: &'a [&'a str],
}

/// The SOAP envelope of a descarga masiva request, its `des:{child}` signed
/// with the FIEL the way phpcfdi does it (PROTOCOLS §1.4): digest = SHA-1 of the
/// exclusive C14N of the operation element without the signature, `Reference
/// URI=""` with one exc-c14n transform, rsa-sha1, `KeyInfo/X509Data` with
/// `X509IssuerSerial` (decimal serial) and `X509Certificate`.
///
/// # Errors
/// [`Error::ExpectedFiel`] unless `credential` is a FIEL; [`Error::SigningFailed`].
pub fn sign_descarga(credential: &Credential, request: &DescargaRequest<'_>) -> Result<String, Error> {
    require_kind(credential, CertificateKind::Fiel)?;
    let mut attributes: Vec<(&str, &str)> =
        request.attributes.iter().copied().filter(|(_, value)| !value.is_empty()).collect();
    attributes.sort_unstable();
    let mut child = Element::new(&format!("des:{}", request.child));
    for (name, value) in attributes {
        child = child.attribute(name, value);
    }
    if !request.rfc_receptores.is_empty() {
        let mut receptores = Element::new("des:RfcReceptores");
        for rfc in request.rfc_receptores {
            receptores = receptores.child(Element::new("des:RfcReceptor").text(rfc));
        }
        child = child.child(receptores);
    }
    let operation = Element::new(&format!("des:{}", request.operation)).child(child);
    let envelope_scope =
        Element::new("s:Envelope").namespace("s", NS_SOAP).namespace("des", NS_DESCARGA).scope_inside(&Scope::new());
    let digest = sha1_base64(c14n::canonicalize(&operation, &envelope_scope, C14n::Exclusive, None).as_bytes());
    let info = signed_info(ALG_EXC_C14N, "", &[ALG_EXC_C14N], &digest);
    let key_info = x509_key_info(credential.certificate(), false);
    let signature_element = signature(credential, &envelope_scope, C14n::Exclusive, info, key_info)?;

    let Element { prefix, local, namespaces, attributes, mut children } = operation;
    if let Some(Node::Element(child)) = children.first_mut() {
        child.children.push(Node::Element(signature_element));
    }
    let operation = Element { prefix, local, namespaces, attributes, children };
    let envelope = Element::new("s:Envelope")
        .namespace("s", NS_SOAP)
        .namespace("des", NS_DESCARGA)
        .child(Element::new("s:Header"))
        .child(Element::new("s:Body").child(operation));
    Ok(document(&envelope, false))
}

/// Canonical form of a whole document.
///
/// # Errors
/// [`Error::Xml`] for malformed or unsupported XML.
pub fn canonicalize_document(xml: &str, mode: C14n) -> Result<String, Error> {
    let root = c14n::parse(xml)?;
    Ok(c14n::canonicalize(&root, &Scope::new(), mode, None))
}

/// What [`verify`] found.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The certificate that made the signature (from `X509Certificate` or the
    /// WS-Security `BinarySecurityToken`). The caller checks its RFC, kind and
    /// validity.
    pub certificate: Certificate,
    /// The `Reference URI` (`""` or `#id`).
    pub reference_uri: String,
    /// Local name of the element the digest covers.
    pub signed_element: String,
}

/// Verifies the first `Signature` of a document made like the ones above (or
/// by other SAT clients): one `Reference`, exclusive or inclusive C14N,
/// optional enveloped transform, sha1/sha256 digest, rsa-sha1/rsa-sha256.
///
/// `URI="#id"` resolves to the element whose `Id`/`ID`/`id` attribute (any
/// prefix) is `id`. `URI=""` is the whole document minus the signature or, as
/// SAT's descarga masiva accepts, an ancestor of the signature detached as its
/// own document (PROTOCOLS §1.4 "simulator rule"); the signature is always left
/// out of the digest.
///
/// # Errors
/// [`Error::Xml`] for malformed or unsupported documents,
/// [`Error::DigestMismatch`], [`Error::InvalidSignature`], certificate errors.
pub fn verify(xml: &str) -> Result<Verified, Error> {
    let root = c14n::parse(xml)?;
    let empty = Scope::new();
    let mut path: Vec<(&Element, Scope)> = Vec::new();
    if !find_signature(&root, &empty, &mut path) {
        return Err(Error::Xml("no ds:Signature element".into()));
    }
    let missing = |what: &str| Error::Xml(format!("Signature has no {what}"));
    let (signature_element, signature_outer) = path.last().cloned().ok_or_else(|| missing("element"))?;
    let inside = signature_element.scope_inside(&signature_outer);
    let signed_info = child_named(signature_element, "SignedInfo").ok_or_else(|| missing("SignedInfo"))?;
    let c14n_method = child_named(signed_info, "CanonicalizationMethod")
        .and_then(|element| element.attribute_value("Algorithm"))
        .ok_or_else(|| missing("CanonicalizationMethod"))?;
    let signature_method = child_named(signed_info, "SignatureMethod")
        .and_then(|element| element.attribute_value("Algorithm"))
        .ok_or_else(|| missing("SignatureMethod"))?;
    let references: Vec<&Element> = signed_info.elements().filter(|e| e.local == "Reference").collect();
    let [reference] = references.as_slice() else {
        return Err(Error::Xml("exactly one Reference is supported".into()));
    };
    let uri = reference.attribute_value("URI").unwrap_or("").to_owned();
    let mut reference_mode = C14n::Inclusive;
    if let Some(transforms) = child_named(reference, "Transforms") {
        for transform in transforms.elements() {
            match transform.attribute_value("Algorithm") {
                Some(ALG_EXC_C14N) => reference_mode = C14n::Exclusive,
                Some(ALG_C14N) => reference_mode = C14n::Inclusive,
                Some(ALG_ENVELOPED) => {}
                other => return Err(Error::Xml(format!("unsupported transform {other:?}"))),
            }
        }
    }
    let digest_algorithm = match child_named(reference, "DigestMethod").and_then(|e| e.attribute_value("Algorithm")) {
        Some(ALG_SHA1) => &aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY,
        Some(ALG_SHA256) => &aws_lc_rs::digest::SHA256,
        other => return Err(Error::Xml(format!("unsupported digest {other:?}"))),
    };
    let expected_digest = child_named(reference, "DigestValue")
        .map(|e| compact(&e.text_content()))
        .ok_or_else(|| missing("DigestValue"))?;

    // Candidates for the referenced content, each with the scope around it.
    let mut candidates: Vec<(&Element, Scope)> = Vec::new();
    if let Some(id) = uri.strip_prefix('#') {
        let mut found = Vec::new();
        find_by_id(&root, &empty, id, &mut found);
        candidates.extend(found);
    } else if uri.is_empty() {
        candidates.push((&root, empty.clone()));
        // Ancestors of the signature, nearest first, detached (own declarations only
        // plus the namespaces they use, which exclusive c14n renders anyway).
        for (ancestor, outer) in path.iter().rev().skip(1) {
            candidates.push((*ancestor, outer.clone()));
        }
    } else {
        return Err(Error::Xml(format!("unsupported Reference URI {uri:?}")));
    }
    let signed = candidates
        .iter()
        .find(|(element, outer)| {
            let canonical = c14n::canonicalize(element, outer, reference_mode, Some(signature_element));
            let digest = aws_lc_rs::digest::digest(digest_algorithm, canonical.as_bytes());
            base64_encode(digest.as_ref()) == expected_digest
        })
        .ok_or(Error::DigestMismatch)?;

    let certificate = signer_certificate(&root, signature_element)?;
    let mode = match c14n_method {
        ALG_EXC_C14N => C14n::Exclusive,
        ALG_C14N => C14n::Inclusive,
        other => return Err(Error::Xml(format!("unsupported canonicalization {other}"))),
    };
    let canonical_signed_info = c14n::canonicalize(signed_info, &inside, mode, None);
    let signature_value = child_named(signature_element, "SignatureValue")
        .map(|e| compact(&e.text_content()))
        .ok_or_else(|| missing("SignatureValue"))?;
    let signature_bytes = base64::engine::general_purpose::STANDARD
        .decode(signature_value)
        .map_err(|_| Error::Xml("SignatureValue is not base64".into()))?;
    match signature_method {
        ALG_RSA_SHA1 => certificate.verify_sha1(canonical_signed_info.as_bytes(), &signature_bytes)?,
        ALG_RSA_SHA256 => certificate.verify_sha256(canonical_signed_info.as_bytes(), &signature_bytes)?,
        other => return Err(Error::Xml(format!("unsupported signature method {other}"))),
    }
    Ok(Verified { certificate, reference_uri: uri, signed_element: signed.0.local.clone() })
}

fn compact(text: &str) -> String {
    text.chars().filter(|c| !c.is_ascii_whitespace()).collect()
}

fn child_named<'a>(element: &'a Element, local: &str) -> Option<&'a Element> {
    element.elements().find(|child| child.local == local)
}

/// Depth-first search for the first dsig `Signature`; fills `path` with the
/// elements from the root to it, each with the scope around it.
fn find_signature<'a>(element: &'a Element, outer: &Scope, path: &mut Vec<(&'a Element, Scope)>) -> bool {
    path.push((element, outer.clone()));
    let inside = element.scope_inside(outer);
    if element.local == "Signature" && element.namespace_uri(&inside) == NS_DSIG {
        return true;
    }
    for child in element.elements() {
        if find_signature(child, &inside, path) {
            return true;
        }
    }
    path.pop();
    false
}

fn find_by_id<'a>(element: &'a Element, outer: &Scope, id: &str, found: &mut Vec<(&'a Element, Scope)>) {
    let matches = element.attributes.iter().any(|a| matches!(a.local.as_str(), "Id" | "ID" | "id") && a.value == id);
    if matches {
        found.push((element, outer.clone()));
    }
    let inside = element.scope_inside(outer);
    for child in element.elements() {
        find_by_id(child, &inside, id, found);
    }
}

/// The certificate named by `KeyInfo`: `X509Data/X509Certificate`, or a
/// WS-Security `SecurityTokenReference` to a `BinarySecurityToken`.
fn signer_certificate(root: &Element, signature_element: &Element) -> Result<Certificate, Error> {
    let key_info =
        child_named(signature_element, "KeyInfo").ok_or_else(|| Error::Xml("Signature has no KeyInfo".into()))?;
    if let Some(certificate) = child_named(key_info, "X509Data").and_then(|data| child_named(data, "X509Certificate")) {
        return Certificate::from_base64(&certificate.text_content());
    }
    let token_id = child_named(key_info, "SecurityTokenReference")
        .and_then(|reference| child_named(reference, "Reference"))
        .and_then(|reference| reference.attribute_value("URI"))
        .and_then(|uri| uri.strip_prefix('#'))
        .ok_or_else(|| Error::Xml("KeyInfo names no certificate".into()))?;
    let mut found = Vec::new();
    find_by_id(root, &Scope::new(), token_id, &mut found);
    let (token, _) = found.first().ok_or_else(|| Error::Xml(format!("no BinarySecurityToken with Id {token_id}")))?;
    Certificate::from_base64(&token.text_content())
}
