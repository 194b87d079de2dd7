#!/bin/sh
# Syntax checks of the balancer configs in deploy/ (make test-deploy): nginx -t and haproxy -c.
# A tool that is not installed is skipped with a note (make deps-deploy installs both).
set -eu
cd "$(dirname "$0")/.."
status=0
if command -v nginx >/dev/null 2>&1; then
    if nginx -q -t -c "$PWD/deploy/nginx/hubserver.conf"; then echo "PASS: nginx -t deploy/nginx/hubserver.conf"
    else echo "FAIL: nginx -t deploy/nginx/hubserver.conf"; status=1; fi
else
    echo "SKIP: nginx not installed (make deps-deploy)"
fi
if command -v haproxy >/dev/null 2>&1; then
    if haproxy -q -c -f deploy/haproxy/haproxy.cfg; then echo "PASS: haproxy -c deploy/haproxy/haproxy.cfg"
    else echo "FAIL: haproxy -c deploy/haproxy/haproxy.cfg"; status=1; fi
else
    echo "SKIP: haproxy not installed (make deps-deploy)"
fi
exit $status
