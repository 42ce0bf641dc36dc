# timbra: multi-stage build; the runtime image holds the binary and CA certificates only and
# runs as an unprivileged user (uid 10001). Build from the repository root (.dockerignore keeps
# target/ and .git out of the context):
#   docker build -t timbra .
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p timbra-server --bin timbra \
 && strip target/release/timbra

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && useradd --system --uid 10001 --home-dir /var/lib/timbra --create-home timbra
COPY --from=build /src/target/release/timbra /usr/local/bin/timbra
USER timbra
WORKDIR /var/lib/timbra
ENV TIMBRA_LISTEN=0.0.0.0:8080 \
    TIMBRA_DATA_DIR=/var/lib/timbra \
    TIMBRA_LOG_FORMAT=json
EXPOSE 8080
# `serve` applies pending migrations before it listens; SIGTERM drains in-flight requests and
# hands running jobs back (their leases expire and another instance takes them).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/timbra"]
CMD ["serve"]
