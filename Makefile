# HubServer: the two commands are `make run` (serve the demo Config/ on 127.0.0.1:8080) and
# `make test`. Both install the Debian packages the build (and the README check) need when missing.

SWIFT        ?= swift
APT_PACKAGES := libcurl4-openssl-dev libssl-dev zlib1g-dev libsqlite3-dev libpq-dev pkg-config curl jq
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps deps-browser deps-deploy test-browser preview-screenshot test-deploy build run test test-stress test-tsan bench bench-model bench-sync bench-engine bench-upstream bench-server bench-http fuzz-json fuzz-http fuzz-app clean
.PHONY: release-pgo check deps-postgres deps-contracts test-contracts test-monitoring bench-access-log bench-reload test-starter bench-matrix bench-session-memory bench-slow-readers bench-scale bench-refcounts bench-cpu bench-identity bench-send-floor bench-invalidation

## apt_install PACKAGES,FLAGS: installs those of PACKAGES that are missing (after one
## apt-get update), with apt-get's extra FLAGS; the one apt step of every deps target.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(2) $$missing; \
	fi
endef

## Install the system libraries (libcurl, OpenSSL's libcrypto, zlib, SQLite, libpq) and the README check's tools (curl, jq) if any is missing.
deps:
	$(call apt_install,$(APT_PACKAGES),)

## PostgreSQL's server binaries for the tests' throwaway clusters (initdb and pg_ctl in a
## temporary directory, on a loopback port; the system service is never used).
deps-postgres: deps
	$(call apt_install,postgresql,--no-install-recommends)

build: deps
	$(SWIFT) build

## The fast check: build with the tests, then the Swift test suite (no browser, deploy or
## contract checks: those are `make test`).
check: deps deps-postgres
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## Build and serve the demo config (Config/) on 127.0.0.1:8080 (HUB_HOST=0.0.0.0 for every
## interface, HUB_PORT for another port).
run: deps
	$(SWIFT) build -c release --product hub-server
	HUB_HOST=$${HUB_HOST:-127.0.0.1} .build/release/hub-server serve

## Build and run the whole test suite, then the README's and docs/' curl lines against the demo
## server, the profile-guided build's training mix against it, the starter package as an outside package, the browser tests (CORS, the preview), the
## balancer configs and the dashboard and alert rules, then the contract checks (OpenAPI,
## view-model schema over every recorded view, schemathesis).
test: deps deps-postgres deps-browser deps-deploy deps-contracts
	$(SWIFT) build --build-tests
	rm -rf $(TEST_VIEW_DIR)
	$(SWIFT) test --skip-build
	Tests/system/readme.sh
	Tests/system/pgo-training.sh
	$(MAKE) --no-print-directory test-starter test-browser test-deploy test-monitoring
	$(MAKE) --no-print-directory test-contracts

## Under make test the Swift tests record every view they receive (validated by test-contracts)
## and the promtool check of /metrics is required (Debian prometheus, installed by deps-contracts).
TEST_VIEW_DIR := .build/test-views
test: export HUB_TEST_VIEW_DIR := $(CURDIR)/$(TEST_VIEW_DIR)
test: export HUB_REQUIRE_PROMTOOL := 1
test: export HUB_REQUIRE_HAPROXY := 1

## Headless Chromium and its driver (apt), Selenium in a virtualenv (.venv/, git-ignored).
BROWSER_APT := chromium chromium-driver
VENV        := .venv
deps-browser:
	$(call apt_install,$(BROWSER_APT),)
	@$(VENV)/bin/python -c 'import selenium' 2>/dev/null || { \
		echo "creating $(VENV) with selenium"; \
		python3 -m venv $(VENV) && $(VENV)/bin/pip install -q --disable-pip-version-check 'selenium>=4.11,<5'; }

## Examples/Starter as an outside package: a copy in a temporary directory, its dependency
## pointed at this repository by path; swift build, swift test, and swift run serving its own
## feature over HTTP on loopback (Tests/system/starter.sh; a debug build of its own, a few minutes).
test-starter: deps
	SWIFT=$(SWIFT) Tests/system/starter.sh

## In headless Chromium (debug build): a page on one loopback origin uses the API on another
## (CORS), and the browser preview renders, follows and acts on views (GET /preview).
test-browser: deps-browser
	$(SWIFT) build --product hub-server
	$(VENV)/bin/python Tests/system/browser/cors_test.py --server .build/debug/hub-server
	$(VENV)/bin/python Tests/system/browser/preview_test.py --server .build/debug/hub-server

## Retakes docs/preview.png (README.md, docs/PREVIEW.md): the preview of hub:food in headless
## Chromium (debug build), saved once the page says it is live and a component is explained.
preview-screenshot: deps-browser
	$(SWIFT) build --product hub-server
	$(VENV)/bin/python Tests/system/browser/preview_test.py --server .build/debug/hub-server --screenshot docs/preview.png

## nginx and HAProxy for the configs in deploy/ (their system services are not used: the checks
## run them on loopback), openssl for the TLS example's throwaway certificate, and
## kubernetes-validate (with its offline schemas) in the same virtualenv as Selenium, for the
## manifests in deploy/kubernetes/.
DEPLOY_APT := nginx haproxy openssl
DEPLOY_PIP := 'kubernetes-validate>=1.37,<1.38'
deps-deploy:
	$(call apt_install,$(DEPLOY_APT),--no-install-recommends)
	@[ -x $(VENV)/bin/python ] || { echo "creating $(VENV)"; python3 -m venv $(VENV); }
	@$(VENV)/bin/python -c 'import kubernetes_validate, yaml' 2>/dev/null || { \
		echo "installing kubernetes-validate into $(VENV)"; \
		$(VENV)/bin/pip install -q --disable-pip-version-check $(DEPLOY_PIP); }

## Contract tools: promtool (apt prometheus; its service is not used), and schemathesis,
## openapi-spec-validator and jsonschema in the same virtualenv as Selenium.
CONTRACTS_APT := prometheus
CONTRACTS_PIP := 'schemathesis>=4.3,<5' 'openapi-spec-validator>=0.7,<0.8' 'jsonschema>=4.23,<5'
deps-contracts: deps-browser
	$(call apt_install,$(CONTRACTS_APT),--no-install-recommends)
	@$(VENV)/bin/python -c 'import schemathesis, openapi_spec_validator, jsonschema' 2>/dev/null || { \
		echo "installing schemathesis, openapi-spec-validator, jsonschema into $(VENV)"; \
		$(VENV)/bin/pip install -q --disable-pip-version-check $(CONTRACTS_PIP); }

## Contracts (debug build): docs/ and the embedded copy are current, every view the
## Swift tests recorded validates against docs/view-model.schema.json, every config file and the
## config cases validate against docs/schema/ as the loader judges them, /openapi.json validates,
## and schemathesis (all checks, negative data, stateful links) finds nothing against the demo
## Config/ within SCHEMATHESIS_SECONDS. See Tests/system/contracts/.
SCHEMATHESIS_SECONDS ?= 200
test-contracts: deps-contracts
	$(SWIFT) build --product hub-server
	@if [ -d $(TEST_VIEW_DIR) ]; then $(VENV)/bin/python Tests/system/contracts/validate_views.py $(TEST_VIEW_DIR); \
	elif [ -n "$$HUB_TEST_VIEW_DIR" ]; then echo "FAIL: the Swift tests recorded no views in $(TEST_VIEW_DIR)"; exit 1; \
	else echo "note: no views recorded in $(TEST_VIEW_DIR) (make test records them); view check skipped"; fi
	$(VENV)/bin/python Tests/system/contracts/config_schemas.py
	$(VENV)/bin/python Tests/system/contracts/conformance.py --server .build/debug/hub-server --max-time $(SCHEMATHESIS_SECONDS)

## deploy/: nginx -t, haproxy -c, the TLS example (HTTPS with a self-signed certificate), the
## Kubernetes manifests (kubernetes-validate and the kustomize image, offline) and compose
## file, and three hub-server replicas behind nginx and HAProxy on loopback, one of them
## SIGKILLed (Tests/system/deploy/check.sh; about a minute). Debug build.
test-deploy: deps-deploy
	$(SWIFT) build --product hub-server
	Tests/system/deploy/check.sh

## deploy/monitoring/ (debug build): the Grafana dashboard is what dashboard.py writes, promtool
## check rules and promtool test rules on the alert rules (each alert fires on a series that
## should fire it and not on one that should not), and every metric the dashboard and the rules
## name is on /metrics of a running hub-server (check_metrics.py), and the state store's disk
## bound: 20 s of hostile todo writes keep SQLite's write-ahead log under 64 MiB, the data
## directory 0700 and its files 0600 (Tests/system/robustness/state_disk.sh, on the debug build
## here; release numbers in docs/PERFORMANCE.md). promtool: deps-contracts.
test-monitoring: deps-contracts
	@$(VENV)/bin/python -c 'import yaml' 2>/dev/null || { \
		echo "installing pyyaml into $(VENV)"; $(VENV)/bin/pip install -q --disable-pip-version-check 'pyyaml>=6,<7'; }
	$(SWIFT) build --product hub-server
	$(VENV)/bin/python deploy/monitoring/dashboard.py --check
	promtool check rules deploy/monitoring/alerts.yaml
	promtool test rules deploy/monitoring/alerts.test.yaml
	$(VENV)/bin/python Tests/system/monitoring/check_metrics.py --server .build/debug/hub-server
	HUB_BIN=$(CURDIR)/.build/debug/hub-server Tests/system/robustness/state_disk.sh

## The whole suite STRESS_RUNS times (default 10) beside two CPU-burning processes, after one
## build; prints "stress: N of RUNS green" and fails unless every run passed.
STRESS_RUNS ?= 10
test-stress: deps deps-postgres
	$(SWIFT) build --build-tests
	Tests/system/stress.sh $(STRESS_RUNS)

## The test suite under ThreadSanitizer (separate build folder).
test-tsan: deps deps-postgres
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --no-parallel

## The benchmark of Benchmarks/run.sh: HubServer vs nginx static vs Hummingbird 2 (wrk on
## loopback, installs nginx and wrk if missing), then the figures; docs/PERFORMANCE.md.
bench: deps
	Benchmarks/run.sh

## GET /view against nginx over view sizes, chain shapes, endpoints, reload policies, gzip, wrk
## threads and connections, each cell a ratio to nginx with p99, CPU and allocations per request
## (about 1 h 45 min; MATRIX_QUICK=1: a smoke run; docs/PERFORMANCE.md).
bench-matrix: deps
	$(SWIFT) build -c release --product hub-server
	Benchmarks/bench/matrix.sh

## CPU per request on the realistic config (Benchmarks/configs/realistic): HubServer against nginx
## (2 workers), a second nginx (the A/A floor) and h2o (2 threads) serving the same bytes, per view
## size, endpoint, encoding, client shape and connections; installs wrk, nginx and h2o if missing
## (about 66 minutes plus the profile-guided build; BENCH_QUICK=1: a smoke run; docs/PERFORMANCE.md).
## It measures the production build, `make release-pgo`; BENCH_PGO=0 measures the plain release
## build, BENCH_BIN=path any other binary.
bench-cpu: deps
	$(call apt_install,wrk nginx h2o,--no-install-recommends)
	@if [ -n "$${BENCH_BIN:-}" ]; then Benchmarks/cpu/run.sh; \
	elif [ "$${BENCH_PGO:-1}" = 0 ]; then $(SWIFT) build -c release --product hub-server && Benchmarks/cpu/run.sh; \
	else bin=$$(SWIFT=$(SWIFT) Tools/pgo/build.sh) && BENCH_BIN=$$bin Benchmarks/cpu/run.sh; fi

## What naming a user costs per request: a held view of the demo config polled with a bearer
## token, a trusted gateway's X-User-Id and anonymously (Benchmarks/cpu/identity.sh, a minute).
bench-identity: deps
	$(call apt_install,wrk,--no-install-recommends)
	$(SWIFT) build -c release --product hub-server
	Benchmarks/cpu/identity.sh

## The kernel's floor per response on loopback: a minimal C responder (Benchmarks/cpu/send_floor.c)
## sends 1, 16 and 28 KB four ways under wrk; its CPU per request is what the kernel costs any
## server for the same bytes (docs/PERFORMANCE.md). About 2 minutes.
bench-send-floor:
	$(call apt_install,wrk gcc,--no-install-recommends)
	Benchmarks/cpu/send-floor.sh

## hub-server built with profile-guided optimization (Swift 6.3 or later): an instrumented build
## trained on the demo config by Tools/pgo/train.py, then the release build with its profile, in
## .build-pgo/use/release/ (about twice a release build's time; docs/DEPLOYMENT.md).
release-pgo: deps
	SWIFT=$(SWIFT) Tools/pgo/build.sh

## Reference counting per request (swift_retain/swift_release calls per GET /view, counted exactly
## with perf uprobes; needs root and linux-perf; docs/PERFORMANCE.md, the eleventh pass).
bench-refcounts: deps
	$(SWIFT) build -c release --product hub-server
	Benchmarks/bench/refcounts.sh

## Memory per held session for 1, 50 and 100 items on the todo list and a remote view (release; docs/PERFORMANCE.md).
bench-session-memory: deps
	$(SWIFT) build -c release --product hub-server
	Benchmarks/memory/session-memory.sh

## Slow readers of a large view: the server's memory while 50 clients read nothing of a 3.5 MiB
## view, then every response checked exact (release, loopback, under a minute; docs/PERFORMANCE.md).
bench-slow-readers: deps
	$(SWIFT) build -c release --product hub-server
	python3 Benchmarks/memory/slow_readers.py

## 10,000 idle keep-alive connections and 10,000 SSE listeners: memory per connection and per
## listener, GET /view throughput beside them, fan-out to every listener, action to pushed view
## (release, loopback, about three minutes; docs/PERFORMANCE.md).
bench-scale: deps
	$(SWIFT) build -c release --product hub-server
	Benchmarks/scale/scale.sh

## Config hot reload: file write to SSE event on a live session, p50/p99 (release; docs/PERFORMANCE.md).
bench-reload: deps
	$(SWIFT) build -c release --product hub-server
	python3 Benchmarks/reload/reload_latency.py --server .build/release/hub-server

## Invalidation across replicas: signed POST /invalidate on replica A to the new view on replica B's
## SSE listeners, p50/p99 over 100 (PostgreSQL throwaway cluster; release; docs/INVALIDATION.md).
bench-invalidation: deps deps-postgres
	$(SWIFT) build -c release --product hub-server
	Benchmarks/invalidation/run.sh

## What the access log costs per log.access mode (wrk on loopback; docs/PERFORMANCE.md).
bench-access-log: deps
	Benchmarks/access-log.sh

## HubModel serialization and parse benchmark (release).
bench-model: deps
	$(SWIFT) run -c release HubModelBenchmarks

## HubEngine chain overhead and memory-per-session benchmark (release).
bench-engine: deps
	$(SWIFT) run -c release HubEngineBenchmarks

## HubSync: the pthread lock against Synchronization.Mutex, uncontended and contended (release).
bench-sync: deps
	$(SWIFT) run -c release HubSyncBenchmarks

## HubServer: three 100 ms remote operations per view, 1 000 views over one upstream host, GET /view through the whole responder stack in memory, the request parser in memory (release).
bench-server: deps
	$(SWIFT) run -c release HubServerBenchmarks

## HubUpstream: overlapping fetches, per-host connection cap, warm fetch overhead (release).
bench-upstream: deps
	$(SWIFT) run -c release HubUpstreamBenchmarks

## HubHTTP against nginx with wrk (installs nginx and wrk if missing); see Benchmarks/HubHTTPBenchmarks.
bench-http: deps
	Benchmarks/HubHTTPBenchmarks/run.sh

## libFuzzer over the JSON parser; FUZZ_SECONDS (default 300). See DEVELOPERS.md.
fuzz-json: deps
	Fuzz/run.sh json $${FUZZ_SECONDS:-300}

## libFuzzer over the HTTP request parser; FUZZ_SECONDS (default 600).
fuzz-http: deps
	Fuzz/run.sh http $${FUZZ_SECONDS:-600}

## libFuzzer over whole requests: parser, middleware, endpoints and engine of the demo
## Config/, in memory (HubApplication.respond(to:)); FUZZ_SECONDS (default 600).
fuzz-app: deps
	Fuzz/run.sh app $${FUZZ_SECONDS:-600}

clean:
	rm -rf .build .build-*
