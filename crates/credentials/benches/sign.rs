//! Signing throughput: RSA-2048 PKCS#1 v1.5 over a 1 KiB message.
//!
//! `cargo bench -p timbra-credentials --bench sign`; criterion reports
//! elements/s, i.e. signatures per second on one core.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use timbra_credentials::testgen::{self, Options};
use time::macros::datetime;

fn sign(criterion: &mut Criterion) {
    let generated = testgen::generate(&Options::csd(
        "EKU9003173C9",
        "ESCUELA KEMPER URGATE SA DE CV",
        datetime!(2026-01-01 0:00 UTC),
        datetime!(2030-01-01 0:00 UTC),
    ))
    .unwrap();
    let credential = generated.credential().unwrap();
    let message = vec![b'|'; 1024];
    let signature = credential.sign_sha256(&message).unwrap();

    let mut group = criterion.benchmark_group("rsa2048_1KiB");
    group.throughput(Throughput::Elements(1));
    group
        .bench_function("sign_sha256", |bencher| bencher.iter(|| credential.sign_sha256(black_box(&message)).unwrap()));
    group.bench_function("verify_sha256", |bencher| {
        bencher.iter(|| credential.certificate().verify_sha256(black_box(&message), black_box(&signature)).unwrap())
    });
    group.sample_size(10);
    group.bench_function("sign_sha1", |bencher| bencher.iter(|| credential.sign_sha1(black_box(&message)).unwrap()));
    group.finish();
}

criterion_group!(benches, sign);
criterion_main!(benches);
