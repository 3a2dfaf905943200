#!/bin/sh
# Install the real Kubernetes clients the end-to-end tests drive, and only
# those that are missing. On a machine that has them all it installs
# nothing and touches no network, so `make test` stays quiet and offline.
#
#   kubectl                 any working kubectl on PATH; else Debian's
#                           `kubectl` package if the archive has one, else
#                           `kubernetes-client` (Debian 12 bookworm's name)
#   python3-kubernetes      for /usr/bin/python3 (Debian)
#   nodejs, npm             Debian, when node or npm is missing
#   @kubernetes/client-node `npm ci` in tests/clients/node from the
#                           committed package-lock.json (npm registry only),
#                           redone only when the lock file changes
#
# Only the Debian archive and the npm registry are contacted.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
nodedir="$root/tests/clients/node"

have_kubectl() { kubectl version --client >/dev/null 2>&1; }
have_pykube() { /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1; }
apt_has() { # a package with an install candidate in the configured archive
	apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'
}

apt_missing=""
have_kubectl || apt_missing="$apt_missing kubectl"
have_pykube || apt_missing="$apt_missing python3-kubernetes"
command -v node >/dev/null 2>&1 || apt_missing="$apt_missing nodejs"
command -v npm >/dev/null 2>&1 || apt_missing="$apt_missing npm"

if [ -n "$apt_missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps-clients: missing:$apt_missing" >&2
		echo "deps-clients: run 'sudo $0' or install them by hand" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	pkgs=""
	for p in $apt_missing; do
		if [ "$p" = kubectl ] && ! apt_has kubectl; then
			p=kubernetes-client # bookworm ships kubectl under this name
		fi
		pkgs="$pkgs $p"
	done
	echo "deps-clients: installing$pkgs"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $pkgs
	have_kubectl || { echo "deps-clients: kubectl still does not run" >&2; exit 1; }
	have_pykube || { echo "deps-clients: python3 cannot import kubernetes" >&2; exit 1; }
fi

# @kubernetes/client-node, pinned by the committed lock file. The stamp
# holds the lock file's checksum from the last successful `npm ci`.
stamp="$nodedir/node_modules/.deps-clients.sum"
sum=$(cat "$nodedir/package.json" "$nodedir/package-lock.json" | cksum)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ] ||
	[ ! -f "$nodedir/node_modules/@kubernetes/client-node/package.json" ]; then
	echo "deps-clients: npm ci in tests/clients/node"
	(cd "$nodedir" && npm ci --no-audit --no-fund --loglevel=error)
	echo "$sum" >"$stamp"
fi
