#!/bin/sh
# make test-deploy: the balancer configs and the manifests in deploy/.
#   1. nginx -t and haproxy -c of deploy/nginx/hubserver.conf and deploy/haproxy/haproxy.cfg;
#   2. deploy/testing/tls.sh: the TLS example deploy/nginx/hubserver-tls.conf, with a self-signed
#      certificate made for the run: nginx -t, then HTTPS served in front of hub-server;
#   3. deploy/testing/check_manifests.py: deploy/kubernetes/ (kubernetes-validate, offline, for a
#      stated Kubernetes version; the image from kustomization.yaml's images: entry, rendered as
#      kustomize does; the ConfigMap served by hub-server) and deploy/compose.yaml;
#   4. deploy/test-replicas.sh: three hub-server replicas behind each balancer on loopback.
# Every tool is required (make deps-deploy installs nginx, haproxy and kubernetes-validate into
# .venv/); a missing one is a FAIL, not a skip. HUB_BIN: the hub-server binary (default debug).
set -eu
cd "$(dirname "$0")/.."
HUB_BIN=${HUB_BIN:-$PWD/.build/debug/hub-server}
export HUB_BIN
PYTHON=${DEPLOY_PYTHON:-.venv/bin/python}
status=0
if command -v nginx >/dev/null 2>&1; then
    if nginx -q -t -c "$PWD/deploy/nginx/hubserver.conf"; then echo "PASS: nginx -t deploy/nginx/hubserver.conf"
    else echo "FAIL: nginx -t deploy/nginx/hubserver.conf"; status=1; fi
else
    echo "FAIL: nginx is not installed (make deps-deploy)"; status=1
fi
if command -v haproxy >/dev/null 2>&1; then
    if haproxy -q -c -f deploy/haproxy/haproxy.cfg; then echo "PASS: haproxy -c deploy/haproxy/haproxy.cfg"
    else echo "FAIL: haproxy -c deploy/haproxy/haproxy.cfg"; status=1; fi
else
    echo "FAIL: haproxy is not installed (make deps-deploy)"; status=1
fi
deploy/testing/tls.sh || status=1
if [ -x "$PYTHON" ] && "$PYTHON" -c 'import kubernetes_validate, yaml' 2>/dev/null; then
    "$PYTHON" deploy/testing/check_manifests.py --hub-server "$HUB_BIN" \
        --kubernetes-validate "$(dirname "$PYTHON")/kubernetes-validate" || status=1
else
    echo "FAIL: kubernetes-validate is not installed in $PYTHON's environment (make deps-deploy)"; status=1
fi
deploy/test-replicas.sh || status=1
exit $status
