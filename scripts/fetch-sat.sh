#!/usr/bin/env bash
# scripts/fetch-sat.sh DIR: downloads the files the tests use as their oracle into DIR, in the
# layout they read (the README's "SAT's files"); then point TIMBRA_SAT_DIR at DIR, or use
# ../shared/sat beside the clone. SAT's files are SAT's, so the repository does not hold them.
#
#   xsd/     SAT's schemas; every schemaLocation rewritten to a file in the same folder:
#     http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd                       CFDI 4.0
#     http://www.sat.gob.mx/sitio_internet/cfd/tipoDatos/tdCFDI/tdCFDI.xsd        tipoDatos
#     http://www.sat.gob.mx/sitio_internet/cfd/catalogos/catCFDI.xsd              catálogos CFDI
#     http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd  TFD 1.1
#     http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd                  Pagos 2.0
#     http://www.sat.gob.mx/sitio_internet/cfd/catalogos/Pagos/catPagos.xsd      its catalogs
#     http://www.sat.gob.mx/sitio_internet/cfd/nomina/nomina12.xsd                Nómina 1.2
#     http://www.sat.gob.mx/sitio_internet/cfd/catalogos/Nomina/catNomina.xsd    its catalogs
#     http://www.sat.gob.mx/sitio_internet/cfd/implocal/implocal.xsd              impuestos locales
#     http://www.sat.gob.mx/sitio_internet/cfd/CartaPorte/CartaPorte31.xsd        Carta Porte 3.1
#     http://www.sat.gob.mx/sitio_internet/cfd/catalogos/CartaPorte/catCartaPorte.xsd  its catalogs
#     http://www.sat.gob.mx/sitio_internet/cfd/ComercioExterior20/ComercioExterior20.xsd  Comercio Exterior 2.0
#     http://www.sat.gob.mx/sitio_internet/cfd/catalogos/ComExt/catComExt.xsd    its catalogs
#     http://www.sat.gob.mx/esquemas/retencionpago/2/retencionpagov2.xsd          Retenciones 2.0
#     http://www.sat.gob.mx/esquemas/retencionpago/1/catalogos/catRetenciones.xsd  its catalogs
#     http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10/ServiciosPlataformasTecnologicas10.xsd
#     http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10/CatPlataformasTecnologicas.xsd
#                                                                   Plataformas Tecnológicas 1.0
#     plus this project's wrappers (scripts/sat/xsd: cfdv40-with-complements.xsd,
#     retenciones20-with-complements.xsd), which import the above so one xmllint call checks
#     a document and its complements.
#   xslt/    SAT's cadena original stylesheets; the includes rewritten to files in the folder:
#     http://www.sat.gob.mx/sitio_internet/cfd/4/cadenaoriginal_4_0/cadenaoriginal_4_0.xslt  CFDI 4.0,
#       and the 33 files it includes, each http://www.sat.gob.mx/sitio_internet/cfd/<path>
#       with <path> as in XSLT_4_0 below (2/cadenaoriginal_2_0/utilerias.xslt, Pagos/Pagos20.xslt, …)
#     http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/cadenaoriginal_TFD_1_1.xslt  TFD 1.1
#     xslt/retenciones20/: http://www.sat.gob.mx/esquemas/retencionpago/2/retenciones.xslt
#       and what it includes: utilerias.xslt (as above) and the twelve
#       http://www.sat.gob.mx/esquemas/retencionpago/1/<complement>/<complement>.xslt (XSLT_RET below)
#   certs/   SAT's test certificates and keys (password 12345678a), named by serial number:
#     http://omawww.sat.gob.mx/tramitesyservicios/Paginas/documentos/RFC-PAC-SC.zip
#       SAT's test CSD and FIEL zip; the files are told apart by their serial number.
#     https://rdc.sat.gob.mx/rccf/000010/000007/08/36/11/00001000000708361114.cer
#       a certificate SAT stamps with (SAT's certificate repository).
#     Certificates SAT no longer publishes (the 2019 test set, the test PAC's stamping
#     certificate 30001000000500003456) come from the public test suites that keep them
#     (github.com/SAT-CFDI/python-satcfdi tests/csd, github.com/eclipxe13/CfdiUtils tests/assets);
#     the same URLs are the fallback for any certificate the zip no longer holds (CERTS below).
#     password.txt is written here. certs.csv (what each file is, as openssl read it) is the
#     shared folder's own annotation, not SAT's: it is not downloaded (see ANNOTATIONS below).
#   samples/ CFDI 4.0 samples from public test suites (not SAT's), at the URLs in SAMPLES below
#     (github.com/eclipxe13/CfdiUtils, SAT-CFDI/python-satcfdi, nodecfdi/cfdi-to-pdf), plus two
#     (samples/expected/ holds
#     the cadenas xsltproc computes with the stylesheets above.
#   catalogs/ SAT's catalogs as CSV: unpacked from the edition the service ships
#     (crates/catalogos/data/catalogos-sat.gz), no download.
#   tools/   extract_element.xslt (scripts/sat/tools, written for this project).
#
#   ANNOTATIONS: the shared folder also holds notes on these files that are neither SAT's nor
#   downloadable: certs/certs.csv, samples/manifest.csv (what xmllint and openssl judged of each
#   sample), two samples sealed with SAT's test CSD for it (samples/*_generated.xml) and
#   tools/check_cfdi.sh. The repository does not copy them; the tests that read them
#   (credentials' certificate table, the samples' manifest checks, the SAT simulator's issued
#   documents) need ../shared/sat itself.
#
# Needs curl, unzip, openssl, xsltproc and python3. TIMBRA_SAT_MIRROR=<base URL> fetches every
# URL from <base URL>/<host>/<path> instead (the test serves such a tree locally). At the end,
# files that differ from the copies the tests were written against (scripts/sat/SHA256SUMS) are
# listed: SAT republishes schemas and catalogs now and then.
set -euo pipefail

if [ $# -ne 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: $0 DIR     (e.g. $0 ../shared/sat; then TIMBRA_SAT_DIR=DIR unless DIR is ../shared/sat)" >&2
  exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
CFD=http://www.sat.gob.mx/sitio_internet/cfd
RET=http://www.sat.gob.mx/esquemas/retencionpago
GH=https://raw.githubusercontent.com

XSD="
$CFD/4/cfdv40.xsd
$CFD/tipoDatos/tdCFDI/tdCFDI.xsd
$CFD/catalogos/catCFDI.xsd
$CFD/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd
$CFD/Pagos/Pagos20.xsd
$CFD/catalogos/Pagos/catPagos.xsd
$CFD/nomina/nomina12.xsd
$CFD/catalogos/Nomina/catNomina.xsd
$CFD/implocal/implocal.xsd
$CFD/CartaPorte/CartaPorte31.xsd
$CFD/catalogos/CartaPorte/catCartaPorte.xsd
$CFD/ComercioExterior20/ComercioExterior20.xsd
$CFD/catalogos/ComExt/catComExt.xsd
$RET/2/retencionpagov2.xsd
$RET/1/catalogos/catRetenciones.xsd
$RET/1/PlataformasTecnologicas10/ServiciosPlataformasTecnologicas10.xsd
$RET/1/PlataformasTecnologicas10/CatPlataformasTecnologicas.xsd
"

# cadenaoriginal_4_0.xslt and what it includes (paths under $CFD), and TFD 1.1's stylesheet.
XSLT_4_0="
4/cadenaoriginal_4_0/cadenaoriginal_4_0.xslt
2/cadenaoriginal_2_0/utilerias.xslt
donat/donat11.xslt
divisas/divisas.xslt
implocal/implocal.xslt
leyendasFiscales/leyendasFisc.xslt
pfic/pfic.xslt
TuristaPasajeroExtranjero/TuristaPasajeroExtranjero.xslt
nomina/nomina12.xslt
cfdiregistrofiscal/cfdiregistrofiscal.xslt
pagoenespecie/pagoenespecie.xslt
aerolineas/aerolineas.xslt
valesdedespensa/valesdedespensa.xslt
notariospublicos/notariospublicos.xslt
vehiculousado/vehiculousado.xslt
servicioparcialconstruccion/servicioparcialconstruccion.xslt
renovacionysustitucionvehiculos/renovacionysustitucionvehiculos.xslt
certificadodestruccion/certificadodedestruccion.xslt
arteantiguedades/obrasarteantiguedades.xslt
ComercioExterior11/ComercioExterior11.xslt
ComercioExterior20/ComercioExterior20.xslt
ine/ine11.xslt
iedu/iedu.xslt
ventavehiculos/ventavehiculos11.xslt
detallista/detallista.xslt
EstadoDeCuentaCombustible/ecc12.xslt
consumodecombustibles/consumodeCombustibles11.xslt
GastosHidrocarburos10/GastosHidrocarburos10.xslt
IngresosHidrocarburos10/IngresosHidrocarburos.xslt
CartaPorte/CartaPorte20.xslt
Pagos/Pagos20.xslt
CartaPorte/CartaPorte30.xslt
CartaPorte/CartaPorte31.xslt
HidrocarburosPetro/hidrocarburospetroliferos.xslt
TimbreFiscalDigital/cadenaoriginal_TFD_1_1.xslt
"

# retenciones.xslt and the complements it includes (paths under $RET/1).
XSLT_RET="
arrendamientoenfideicomiso/arrendamientoenfideicomiso.xslt
dividendos/dividendos.xslt
enajenaciondeacciones/enajenaciondeacciones.xslt
fideicomisonoempresarial/fideicomisonoempresarial.xslt
intereses/intereses.xslt
intereseshipotecarios/intereseshipotecarios.xslt
pagosaextranjeros/pagosaextranjeros.xslt
premios/premios.xslt
operacionesconderivados/operacionesconderivados.xslt
sectorfinanciero/sectorfinanciero.xslt
planesderetiro11/planesderetiro11.xslt
PlataformasTecnologicas10/ServiciosPlataformasTecnologicas10.xslt
"

SAT_ZIP=http://omawww.sat.gob.mx/tramitesyservicios/Paginas/documentos/RFC-PAC-SC.zip

# Where each certificate comes from when SAT's zip does not hold it: URL and file.
SATCFDI=$GH/SAT-CFDI/python-satcfdi/HEAD/tests/csd
CERTS="
https://rdc.sat.gob.mx/rccf/000010/000007/08/36/11/00001000000708361114.cer 00001000000708361114.cer
$SATCFDI/Personas%20Fisicas/xiqb891116qe4.cer 30001000000400002311.cer
$SATCFDI/Personas%20Fisicas/xiqb891116qe4.key 30001000000400002311.key
$SATCFDI/Personas%20Fisicas/xiqb891116qe4_csd.cer 30001000000400002336.cer
$SATCFDI/Personas%20Fisicas/xiqb891116qe4_csd.key 30001000000400002336.key
$SATCFDI/Personas%20Morales/eku9003173c9.cer 30001000000400002417.cer
$SATCFDI/Personas%20Morales/eku9003173c9.key 30001000000400002417.key
$SATCFDI/Personas%20Morales/xia190128j61.cer 30001000000400002424.cer
$SATCFDI/Personas%20Morales/xia190128j61.key 30001000000400002424.key
$SATCFDI/Personas%20Fisicas/ia%C3%B1l750210963.cer 30001000000400002431.cer
$SATCFDI/Personas%20Fisicas/ia%C3%B1l750210963.key 30001000000400002431.key
$SATCFDI/Personas%20Morales/eku9003173c9_csd.cer 30001000000400002434.cer
$SATCFDI/Personas%20Morales/eku9003173c9_csd.key 30001000000400002434.key
$SATCFDI/Certificado_Prueba_Vigente_SAT_JES900109Q90/30001000000400002436.cer 30001000000400002436.cer
$SATCFDI/Certificado_Prueba_Vigente_SAT_JES900109Q90/30001000000400002436.key 30001000000400002436.key
$SATCFDI/Personas%20Morales/xia190128j61_csd.cer 30001000000400002443.cer
$SATCFDI/Personas%20Morales/xia190128j61_csd.key 30001000000400002443.key
$SATCFDI/Personas%20Fisicas/ia%C3%B1l750210963_csd.cer 30001000000400002449.cer
$SATCFDI/Personas%20Fisicas/ia%C3%B1l750210963_csd.key 30001000000400002449.key
$SATCFDI/Personas%20Morales/h%26e951128469.cer 30001000000400002460.cer
$SATCFDI/Personas%20Morales/h%26e951128469.key 30001000000400002460.key
$SATCFDI/Personas%20Morales/h%26e951128469_csd.cer 30001000000400002463.cer
$SATCFDI/Personas%20Morales/h%26e951128469_csd.key 30001000000400002463.key
$GH/phpcfdi/sat-ws-descarga-masiva/HEAD/tests/_files/fake-fiel/EKU9003173C9.cer 30001000000500003415.cer
$GH/phpcfdi/sat-ws-descarga-masiva/HEAD/tests/_files/fake-fiel/EKU9003173C9.key 30001000000500003415.key
$GH/phpcfdi/sat-ws-descarga-masiva/HEAD/tests/_files/fake-csd/EKU9003173C9.cer 30001000000500003416.cer
$GH/phpcfdi/sat-ws-descarga-masiva/HEAD/tests/_files/fake-csd/EKU9003173C9.key 30001000000500003416.key
$GH/eclipxe13/CfdiUtils/HEAD/tests/assets/certs/30001000000500003456.cer 30001000000500003456.cer
"

# Third-party samples (manifest.csv names each one's repository and path): URL and file.
CFDIUTILS=$GH/eclipxe13/CfdiUtils/HEAD/tests/assets
SATCFDI_T=$GH/SAT-CFDI/python-satcfdi/HEAD/tests
SAMPLES="
$CFDIUTILS/cfdi40-real.xml I_ISD950921HE5_real_tfd.xml
$CFDIUTILS/cfdi40-valid.xml I_EKU9003173C9_descuento_tfd.xml
$CFDIUTILS/created-with-discounts-40.xml I_EKU9003173C9_descuentos.xml
$CFDIUTILS/created-cfdi40-pago20-valid.xml P_EKU9003173C9_pagos20.xml
$SATCFDI_T/test_pac_finkok/test_finkok_stamp.xml I_EKU9003173C9_finkok_tfd.xml
$SATCFDI_T/test_create_cfdi40/xiqb891116qe4_ingreso_iva0.xml I_XIQB891116QE4_iva0_fiel.xml
$SATCFDI_T/test_create_cfdi40/xiqb891116qe4_ingreso_noobjeto.xml I_XIQB891116QE4_noobjeto_fiel.xml
$SATCFDI_T/test_create_cfdi40/rentenciones_concepto_suma_100.05.xml I_XIQB891116QE4_retenciones_fiel.xml
$SATCFDI_T/test_create_cfdi40/h%26e951128469_ingreso_iva8_stamped.xml I_HE951128469_iva8_tfd_fiel.xml
$SATCFDI_T/test_create_cfdi40/h%26e951128469_ingreso_ieps_exento.xml I_HE951128469_ieps_exento_fiel.xml
$SATCFDI_T/test_pac_mysuite/test_mysuite_stamp.xml I_JES900109Q90_mysuite_tfd.xml
$SATCFDI_T/test_create_cfdi40/pago_xiqb891116qe4_ingreso_iva16.xml P_XIQB891116QE4_pagos20_iva16_fiel.xml
$SATCFDI_T/test_create_cfdi40/mpago2_h%26e951128469_ingreso_ieps_exento.xml P_HE951128469_pagos20_2docs_fiel.xml
$SATCFDI_T/cfdi_ejemplos/comprobante40/cfdv40-ejemplo-signed-tfd.xml P_AAA010101AAA_cryptosys_signed_tfd.xml
$SATCFDI_T/cfdi_ejemplos/comprobante40/cfdv40-pagos20-all.xml P_AAA010101AAA_pagos20_all_unsigned.xml
$SATCFDI_T/cfdi_ejemplos/comprobante40/cfdv40-implocal.xml P_AAA010101AAA_implocal_unsigned.xml
$SATCFDI_T/test_create_cfdi40/invoice_nomina.xml N_XIQB891116QE4_nomina12_fiel.xml
$SATCFDI_T/cfdi_ejemplos/comprobante40/cfdv40-nomina12.xml P_AAA010101AAA_nomina12_synthetic_unsigned.xml
$SATCFDI_T/invoices/h%26e951128469_ingreso_iva16_stamped_pue.xml NEG_I_HE951128469_bad_sello.xml
$SATCFDI_T/test_create_cfdi40_raw/manual.xml.xml NEG_I_XIQB891116QE4_schema_invalid.xml
$GH/nodecfdi/cfdi-to-pdf/HEAD/tests/_files/cfdi40-nomina-valid.xml N_AAA010101AAA_nomina12_tfd_unsigned.xml
$GH/nodecfdi/cfdi-to-pdf/HEAD/tests/_files/cfdi40-nomina-compensacion-valid.xml N_AAA010101AAA_nomina12_compensacion_unsigned.xml
"

# Every download as "URL file-in-DIR" (the zip's contents are sorted out by serial number).
downloads() {
  local url path
  for url in $XSD; do echo "$url xsd/${url##*/}"; done
  for path in $XSLT_4_0; do echo "$CFD/$path xslt/${path##*/}"; done
  echo "$RET/2/retenciones.xslt xslt/retenciones20/retenciones.xslt"
  echo "$CFD/2/cadenaoriginal_2_0/utilerias.xslt xslt/retenciones20/utilerias.xslt"
  for path in $XSLT_RET; do echo "$RET/1/$path xslt/retenciones20/${path##*/}"; done
  echo "$SAT_ZIP certs/RFC-PAC-SC.zip"
  echo "$CERTS" | sed '/^$/d; s#^\([^ ]*\) #\1 certs/#'
  echo "$SAMPLES" | sed '/^$/d; s#^\([^ ]*\) #\1 samples/#'
}

# `--list`: the downloads, for the mirror the test builds.
if [ "$1" = "--list" ]; then
  downloads
  exit 0
fi

for tool in curl unzip openssl xsltproc python3; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is required" >&2; exit 1; }
done

dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The URL actually fetched: the mirror's <base>/<host>/<path> when TIMBRA_SAT_MIRROR is set.
source_of() {
  if [ -n "${TIMBRA_SAT_MIRROR:-}" ]; then
    echo "${TIMBRA_SAT_MIRROR%/}/${1#*://}"
  else
    echo "$1"
  fi
}

fetch() { # URL FILE
  mkdir -p "$(dirname "$2")"
  if ! curl -fsSL --retry 3 --connect-timeout 20 -o "$2.part" "$(source_of "$1")"; then
    rm -f "$2.part"
    echo "$0: cannot download $1" >&2
    return 1
  fi
  mv "$2.part" "$2"
}

echo "SAT's schemas and stylesheets into $dir"
mkdir -p "$dir/xsd" "$dir/xslt/retenciones20" "$dir/certs" "$dir/samples/expected" "$dir/tools"
downloads | grep -E ' (xsd|xslt)/' | while read -r url file; do fetch "$url" "$dir/$file"; done
# Every schemaLocation and xsl:include names a file in the same folder.
sed -E -i 's#schemaLocation="[^"]*/([^"/]+)"#schemaLocation="\1"#g' "$dir"/xsd/*.xsd
sed -E -i 's#(<xsl:include href=")[^"]*/([^"/]+")#\1\2#g' \
  "$dir/xslt/cadenaoriginal_4_0.xslt" "$dir/xslt/retenciones20/retenciones.xslt"
cp "$here"/sat/xsd/*.xsd "$dir/xsd/"
cp "$here"/sat/tools/* "$dir/tools/"

echo "SAT's test certificates"
# The zip's certificates by serial number (SAT writes the digits' ASCII codes in hex), and each
# key with the certificate whose public key it holds.
fetch "$SAT_ZIP" "$work/certs.zip" || echo "$0: SAT's zip is not available; using the fallback URLs" >&2
if [ -f "$work/certs.zip" ]; then
  mkdir -p "$work/zip"
  unzip -q -o "$work/certs.zip" -d "$work/zip"
  while IFS= read -r -d '' cer; do
    # DER as the tests read it (a PEM copy is converted).
    openssl x509 -inform DER -in "$cer" -outform DER -out "$work/cer.der" 2>/dev/null \
      || openssl x509 -in "$cer" -outform DER -out "$work/cer.der" 2>/dev/null || continue
    hex=$(openssl x509 -inform DER -in "$work/cer.der" -noout -serial)
    serial=$(printf '%b' "$(echo "${hex#serial=}" | sed 's/../\\x&/g')")
    [[ "$serial" =~ ^[0-9]{20}$ ]] || continue # not a SAT certificate (a CA's, say)
    openssl x509 -inform DER -in "$work/cer.der" -noout -pubkey > "$work/$serial.pub"
    mv "$work/cer.der" "$work/$serial.cer"
  done < <(find "$work/zip" -type f -iname '*.cer' -print0)
  while IFS= read -r -d '' key; do
    pub=$(openssl pkey -inform DER -in "$key" -passin pass:12345678a -pubout 2>/dev/null) || continue
    for known in "$work"/*.pub; do
      [ -f "$known" ] && [ "$pub" = "$(cat "$known")" ] && cp "$key" "${known%.pub}.key"
    done
  done < <(find "$work/zip" -type f -iname '*.key' -print0)
fi
printf '12345678a\n' > "$dir/certs/password.txt"
echo "$CERTS" | sed '/^$/d' | while read -r url file; do
  if [ -f "$work/$file" ]; then
    cp "$work/$file" "$dir/certs/$file"
    echo "  $file: from SAT's RFC-PAC-SC.zip"
  else
    fetch "$url" "$dir/certs/$file"
    echo "  $file: from $url"
  fi
done

echo "Samples (public test suites) and their cadenas"
echo "$SAMPLES" | sed '/^$/d' | while read -r url file; do fetch "$url" "$dir/samples/$file"; done
for xml in "$dir"/samples/*.xml; do
  name=$(basename "$xml" .xml)
  xsltproc --nonet "$dir/xslt/cadenaoriginal_4_0.xslt" "$xml" 2>/dev/null > "$dir/samples/expected/$name.cadena.txt"
  xsltproc --nonet "$dir/tools/extract_element.xslt" "$xml" 2>/dev/null > "$work/tfd.xml"
  if [ -s "$work/tfd.xml" ]; then
    xsltproc --nonet "$dir/xslt/cadenaoriginal_TFD_1_1.xslt" "$work/tfd.xml" 2>/dev/null \
      > "$dir/samples/expected/$name.tfd_cadena.txt"
  fi
done

echo "SAT's catalogs (the edition the service ships)"
python3 - "$root/crates/catalogos/data/catalogos-sat.gz" "$dir/catalogs" <<'PY'
# Layout: "timbra-catalogos 1", "edicion <date>", then "archivo <id> <bytes>" and the CSV.
import gzip, os, sys
data = gzip.open(sys.argv[1]).read()
at = 0
def line():
    global at
    end = data.index(b"\n", at)
    text, at = data[at:end].decode(), end + 1
    return text
assert line() == "timbra-catalogos 1"
line()
while at < len(data):
    _, ident, size = line().split(" ")
    path = os.path.join(sys.argv[2], ident + ".csv")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(data[at:at + int(size)])
    at += int(size)
PY

# What differs from the files the tests were written against (scripts/sat/SHA256SUMS).
changed=$(cd "$dir" && sha256sum --quiet -c "$here/sat/SHA256SUMS" 2>/dev/null | sed -n 's/: FAILED.*//p' || true)
if [ -n "$changed" ]; then
  echo "Note: these differ from the copies the tests were written against (SAT may have republished them):"
  echo "$changed" | sed 's/^/  /'
fi
echo "Done. Run the tests with: TIMBRA_SAT_DIR=$dir ./test.sh   (not needed when $dir is ../shared/sat)"
