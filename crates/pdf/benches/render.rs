//! Renders per second: a stamped golden invoice (parse + layout + PDF with subset fonts and
//! QR), the layout + PDF alone from the parsed model, and a 300-concept document.
//!
//! `cargo bench -p timbra-pdf --bench render`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const FACTURA: &str = include_str!("../../cfdi/tests/golden/I_iva16.xml");

fn benches(c: &mut Criterion) {
    let comprobante = timbra_cfdi::parser::parsear(FACTURA).unwrap();
    // Warm the process-wide fonts so the first sample is not an outlier.
    timbra_pdf::render(&comprobante).unwrap();
    let mut grupo = c.benchmark_group("pdf");
    grupo.throughput(Throughput::Elements(1));
    grupo.bench_function("render_xml_factura", |b| b.iter(|| timbra_pdf::render_xml(black_box(FACTURA)).unwrap()));
    grupo.bench_function("render_modelo_factura", |b| b.iter(|| timbra_pdf::render(black_box(&comprobante)).unwrap()));
    // Layout cost grows with the concept table: 300 lines over several pages.
    let mut grande = comprobante.clone();
    grande.conceptos = std::iter::repeat_n(comprobante.conceptos[0].clone(), 300).collect();
    grupo.bench_function("render_modelo_300_conceptos", |b| b.iter(|| timbra_pdf::render(black_box(&grande)).unwrap()));
    grupo.finish();
}

criterion_group!(grupo, benches);
criterion_main!(grupo);
