# Shared by the stamping benches (sourced, not run): the test invoice they stamp.
# factura_de_prueba <base> <key> <empresa>: creates a customer in the company and sets
# cliente and body (a PUE invoice of two conceptos to it). Needs json (comun.sh or instancias.sh).
factura_de_prueba() {
  local base=$1 key=$2 empresa=$3
  cliente=$(curl -sf "$base/api/clientes" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' \
    -d '{"rfc":"XIQB891116QE4","razonSocial":"XIMENA QUIROZ BARRAGAN","regimenFiscal":"626","codigoPostal":"42501","usoCfdi":"G03"}' | json "['data']['id']")
  body="{\"formaPago\":\"03\",\"metodoPago\":\"PUE\",\"clienteId\":\"$cliente\",\"conceptos\":[{\"claveProdServ\":\"81112100\",\"claveUnidad\":\"E48\",\"descripcion\":\"Servicio de timbrado\",\"cantidad\":2,\"precioUnitario\":\"1500.50\"},{\"claveProdServ\":\"43232408\",\"claveUnidad\":\"H87\",\"descripcion\":\"Licencia\",\"cantidad\":1,\"precioUnitario\":\"999.99\",\"descuento\":\"99.99\"}]}"
}
