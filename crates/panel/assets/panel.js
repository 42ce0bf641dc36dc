// timbra's dashboard: the few behaviours htmx does not cover. No arithmetic on money here:
// invoice totals come from the server's preview.
document.addEventListener("click", function (event) {
  // Copy buttons: <button data-copiar="#id"> copies the text of the element #id.
  var boton = event.target.closest("[data-copiar]");
  if (boton) {
    var origen = document.querySelector(boton.getAttribute("data-copiar"));
    if (origen && navigator.clipboard) {
      navigator.clipboard.writeText(origen.textContent.trim()).then(function () {
        boton.textContent = "Copiada";
      });
    }
  }
  // Adds an invoice line by cloning the last one (values cleared).
  var agregar = event.target.closest("[data-agregar-linea]");
  if (agregar) {
    var lineas = document.getElementById("lineas");
    var ultima = lineas.querySelector("fieldset.concepto:last-of-type");
    var nueva = ultima.cloneNode(true);
    var n = lineas.querySelectorAll("fieldset.concepto").length + 1;
    nueva.querySelector("legend").textContent = "Concepto " + n;
    nueva.querySelectorAll("input").forEach(function (input) {
      input.value = input.getAttribute("data-inicial") || "";
      input.id = input.id.replace(/-\d+$/, "-" + n);
    });
    nueva.querySelectorAll("select").forEach(function (select) {
      select.selectedIndex = 0;
      select.id = select.id.replace(/-\d+$/, "-" + n);
    });
    nueva.querySelectorAll("label").forEach(function (label) {
      label.htmlFor = label.htmlFor.replace(/-\d+$/, "-" + n);
    });
    nueva.querySelectorAll(".problemas").forEach(function (ul) { ul.remove(); });
    lineas.appendChild(nueva);
    if (window.htmx) { htmx.process(nueva); }
    nueva.querySelector("input, select").focus();
    htmx.trigger(document.getElementById("factura"), "change");
  }
  var quitar = event.target.closest("[data-quitar-linea]");
  if (quitar) {
    var todas = document.querySelectorAll("#lineas fieldset.concepto");
    if (todas.length > 1) {
      quitar.closest("fieldset.concepto").remove();
      htmx.trigger(document.getElementById("factura"), "change");
    }
  }
});
// Choosing a product fills its line's fields (data-* of the option).
document.addEventListener("change", function (event) {
  var select = event.target.closest("select[data-producto]");
  if (!select) { return; }
  var opcion = select.options[select.selectedIndex];
  var linea = select.closest("fieldset.concepto");
  ["descripcion", "precioUnitario", "claveProdServ", "claveUnidad", "tasaIva"].forEach(function (campo) {
    var valor = opcion.getAttribute("data-" + campo.toLowerCase());
    var input = linea.querySelector("[name='" + campo + "']");
    if (input && valor !== null) { input.value = valor; }
  });
  // The filled fields fire no events of their own: ask for the preview again.
  if (window.htmx) { htmx.trigger(document.getElementById("factura"), "change"); }
});
