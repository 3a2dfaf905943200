#!/bin/bash
# `make run`: a seeded fake apiserver with informer-proxy in front of it,
# both on loopback, until Ctrl-C. Prints how to query the proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
FAKE_PORT=${FAKE_PORT:-18080}
PROXY_PORT=${PROXY_PORT:-8001}
SEED=${SEED:-pods=1000,configmaps=200,services=50}
RESOURCES=${RESOURCES:-pods,configmaps,services,namespaces}
logdir=$(mktemp -d -t informer-proxy-run.XXXXXX)

cleanup() {
	kill "$proxy_pid" "$fake_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	echo "logs kept in $logdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bin/fake-apiserver --listen 127.0.0.1:$FAKE_PORT --seed "$SEED" \
	>"$logdir/fake-apiserver.log" 2>&1 &
fake_pid=$!
for _ in $(seq 100); do
	grep -q "listening on" "$logdir/fake-apiserver.log" && break
	sleep 0.1
done
bin/informer-proxy --server http://127.0.0.1:$FAKE_PORT --resources "$RESOURCES" \
	--listen 127.0.0.1:$PROXY_PORT >"$logdir/informer-proxy.log" 2>&1 &
proxy_pid=$!
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$PROXY_PORT/readyz" >/dev/null 2>&1 && break
	sleep 0.1
done

P=http://127.0.0.1:$PROXY_PORT
cat <<TXT

fake apiserver  http://127.0.0.1:$FAKE_PORT  (seeded: $SEED)
informer-proxy  $P  (caching: $RESOURCES)
logs            $logdir

Try:
  curl -s $P/readyz
  curl -s '$P/api/v1/namespaces/ns-1/pods?limit=2'
  curl -s '$P/api/v1/pods?labelSelector=shard%3D7' | head -c 600
  curl -s $P/api/v1/namespaces/ns-1/pods/web-1
  curl -sN '$P/api/v1/namespaces/ns-1/pods?watch=true&resourceVersion=0' | head -c 400
  curl -s http://127.0.0.1:$FAKE_PORT/fake/stats
  kubectl --server $P --kubeconfig /dev/null --cache-dir \$(mktemp -d) get pods -n ns-1
  kubectl --server $P --kubeconfig /dev/null --cache-dir \$(mktemp -d) get pods -A -w
  curl -s $P/metrics | grep informer_proxy_cache

A change made through the fake apiserver shows up in the watch:
  curl -s -X PATCH -H 'Content-Type: application/merge-patch+json' \\
       -d '{"metadata":{"labels":{"demo":"yes"}}}' \\
       http://127.0.0.1:$FAKE_PORT/api/v1/namespaces/ns-1/pods/web-1

Ctrl-C stops both.
TXT
wait "$proxy_pid"
