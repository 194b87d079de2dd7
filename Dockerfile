# HubServer: two stages. Build with the Swift 6 toolchain and the dev packages, run on a slim
# Debian with only the runtime libraries. Not built in this repository's CI (no Docker engine
# there); kept simple enough to check by reading.

# ---- build ----
FROM swift:6.1-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libcurl4-openssl-dev libssl-dev zlib1g-dev libsqlite3-dev libpq-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# SwiftPM refuses a manifest whose targets have no sources, even to build one product, so
# every path Package.swift declares is copied: Sources/, Benchmarks/ and Tests/.
# (DockerContextTests fails when a target's path is missing here.)
COPY Package.swift ./
COPY Sources ./Sources
COPY Benchmarks ./Benchmarks
COPY Tests ./Tests
RUN swift package resolve
RUN swift build -c release --product hub-server --static-swift-stdlib \
 && cp "$(swift build -c release --show-bin-path)/hub-server" /build/hub-server

# ---- run ----
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libcurl4 libssl3 zlib1g libsqlite3-0 libpq5 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin hub \
 && install -d -o hub -g hub -m 0700 /var/lib/hubserver
WORKDIR /app
COPY --from=build /build/hub-server /usr/local/bin/hub-server
COPY Config ./Config
USER hub
# Every interface inside the container (`make run` on a workstation listens on 127.0.0.1 only).
# Session keys: set HUB_SESSION_KEYS (replicas must share it); without it the server generates a
# key into HUB_DATA_DIR, which lasts as long as that directory (mount a volume there). The
# default SQLite state store (docs/CONFIG.md "State") keeps its file there too; replicas share a
# PostgreSQL instead (HUB_STATE_BACKEND=postgres, HUB_STATE_URL).
ENV HUB_CONFIG=/app/Config HUB_HOST=0.0.0.0 HUB_PORT=8080 HUB_DATA_DIR=/var/lib/hubserver
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=2s --start-period=5s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/health || exit 1
# SIGTERM drains: /ready turns 503, in-flight requests finish, then the process exits.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/hub-server"]
CMD ["serve"]
