#!/usr/bin/env bash
# make test-deploy: the balancer configs and the manifests in deploy/.
#   1. nginx -t and haproxy -c of deploy/nginx/hubserver.conf and deploy/haproxy/haproxy.cfg;
#   2. tls.sh: the TLS example deploy/nginx/hubserver-tls.conf, with a self-signed certificate
#      made for the run: nginx -t, then HTTPS served in front of hub-server;
#   3. check_manifests.py: deploy/kubernetes/ (kubernetes-validate, offline, for a stated
#      Kubernetes version; the image from kustomization.yaml's images: entry, rendered as
#      kustomize does; the ConfigMap served by hub-server) and deploy/compose.yaml;
#   4. replicas.sh: three hub-server replicas behind each balancer on loopback;
#   5. many_clients.sh: 40 users from their own addresses behind the shipped nginx, one replica
#      on deploy/server.json as shipped: each holds an event stream.
# Every tool is required (make deps-deploy installs nginx, haproxy and kubernetes-validate into
# .venv/); a missing one is a FAIL, not a skip. HUB_BIN: the hub-server binary (default debug).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR"
HUB_BIN=${HUB_BIN:-$PWD/.build/debug/hub-server}
export HUB_BIN
PYTHON=${DEPLOY_PYTHON:-.venv/bin/python}
here=Tests/system/deploy
if command -v nginx >/dev/null 2>&1; then
    if nginx -q -t -c "$PWD/deploy/nginx/hubserver.conf"; then pass "nginx -t deploy/nginx/hubserver.conf"
    else fail "nginx -t deploy/nginx/hubserver.conf"; fi
else
    fail "nginx is not installed (make deps-deploy)"
fi
if command -v haproxy >/dev/null 2>&1; then
    if haproxy -q -c -f deploy/haproxy/haproxy.cfg; then pass "haproxy -c deploy/haproxy/haproxy.cfg"
    else fail "haproxy -c deploy/haproxy/haproxy.cfg"; fi
else
    fail "haproxy is not installed (make deps-deploy)"
fi
"$here/tls.sh" || CHECK_STATUS=1
if [ -x "$PYTHON" ] && "$PYTHON" -c 'import kubernetes_validate, yaml' 2>/dev/null; then
    "$PYTHON" "$here/check_manifests.py" --hub-server "$HUB_BIN" \
        --kubernetes-validate "$(dirname "$PYTHON")/kubernetes-validate" || CHECK_STATUS=1
else
    fail "kubernetes-validate is not installed in $PYTHON's environment (make deps-deploy)"
fi
"$here/replicas.sh" || CHECK_STATUS=1
"$here/many_clients.sh" || CHECK_STATUS=1
checks_done
