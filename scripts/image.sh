#!/bin/sh
# Build an OCI image of bin/informer-proxy from scratch, offline, with
# Debian's umoci (no container engine, no registry, no network):
#
#   /usr/local/bin/informer-proxy   the binary, stripped
#   the shared libraries ldd names, each at the path ldd prints, with
#   the symlinks that lead there (/lib -> usr/lib as on Debian 12) and
#   the dynamic loader; nothing else, no shell
#   /etc/ssl/certs/ca-certificates.crt   libcurl's CA bundle
#   /etc/passwd, /etc/group        root and nonroot (65532)
#   /usr/share/doc/informer-proxy/LICENSE
#   /tmp                           1777
#
# The config runs the binary as 65532:65532 with PATH=/usr/local/bin (so
# the chart's exec probe "informer-proxy --probe URL" resolves) and the
# org.opencontainers.image.* labels: version, revision, source, licenses.
# The result is an OCI layout in one tar, tagged VERSION: what skopeo
# calls oci-archive:FILE:VERSION.
#
#   scripts/image.sh [OUT]   OUT defaults to build/informer-proxy-VERSION.oci.tar
#   BIN=path                 another binary (default bin/informer-proxy)
#   IMAGE_SOURCE=url         the source label (default: git remote origin)
set -eu
cd "$(dirname "$0")/.."

version=$(cat VERSION)
bin=${BIN:-bin/informer-proxy}
out=${1:-build/informer-proxy-$version.oci.tar}
commit=$(git rev-parse HEAD 2>/dev/null || true)
source=${IMAGE_SOURCE:-$(git remote get-url origin 2>/dev/null || true)}
[ -n "$source" ] || source="unknown (set IMAGE_SOURCE)"

die() {
	echo "image.sh: $*" >&2
	exit 1
}
command -v umoci >/dev/null || die "umoci is needed (scripts/deps.sh image installs it)"
[ -x "$bin" ] || die "$bin is not built (make)"
ca=/etc/ssl/certs/ca-certificates.crt
[ -f "$ca" ] || die "$ca is missing (the ca-certificates package)"

work=$(mktemp -d "${TMPDIR:-/tmp}/informer-proxy-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
mkdir -p "$root/usr/local/bin" "$root/etc/ssl/certs" "$root/tmp"
chmod 1777 "$root/tmp"

# put PATH into the root as it is on this machine: a symlink as a
# symlink (its parent directories' symlinks too, e.g. /lib -> usr/lib),
# then what it points to, until a regular file.
put() {
	p=$1
	dir=$(dirname "$p")
	top=/$(echo "$dir" | cut -d/ -f2)
	if [ -L "$top" ] && [ ! -e "$root$top" ] && [ ! -L "$root$top" ]; then
		ln -s "$(readlink "$top")" "$root$top"
	fi
	rdir=$(readlink -f "$dir")
	name=$(basename "$p")
	mkdir -p "$root$rdir"
	if [ -L "$p" ]; then
		target=$(readlink "$p")
		[ -e "$root$rdir/$name" ] || [ -L "$root$rdir/$name" ] ||
			ln -s "$target" "$root$rdir/$name"
		case $target in
		/*) put "$target" ;;
		*) put "$rdir/$target" ;;
		esac
	elif [ ! -e "$root$rdir/$name" ]; then
		cp "$p" "$root$rdir/$name"
	fi
}

# ldd's "name => /path (addr)" lines, and the loader's "/path (addr)".
libs=$(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}')
[ -n "$libs" ] || die "ldd names no library for $bin: not a dynamic binary?"
for l in $libs; do
	put "$l"
done
strip --strip-unneeded -o "$root/usr/local/bin/informer-proxy" "$bin"
cp "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$root/usr/share/doc/informer-proxy"
cp LICENSE "$root/usr/share/doc/informer-proxy/LICENSE"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"

layout=$work/oci
umoci init --layout "$layout"
umoci new --image "$layout:$version"
umoci unpack --image "$layout:$version" "$work/bundle" >/dev/null
rmdir "$work/bundle/rootfs"
mv "$root" "$work/bundle/rootfs"
umoci repack --image "$layout:$version" "$work/bundle"
umoci config --image "$layout:$version" \
	--author "informer-proxy" \
	--config.user 65532:65532 \
	--config.entrypoint /usr/local/bin/informer-proxy \
	--config.workingdir / \
	--config.env PATH=/usr/local/bin \
	--config.label "org.opencontainers.image.title=informer-proxy" \
	--config.label "org.opencontainers.image.version=$version" \
	--config.label "org.opencontainers.image.revision=$commit" \
	--config.label "org.opencontainers.image.source=$source" \
	--config.label "org.opencontainers.image.licenses=Apache-2.0" \
	--manifest.annotation "org.opencontainers.image.version=$version"
umoci gc --layout "$layout"

chmod -R a+rX "$layout"
mkdir -p "$(dirname "$out")"
(cd "$layout" && tar --owner=0 --group=0 --numeric-owner -cf - oci-layout index.json blobs) >"$out.tmp"
mv "$out.tmp" "$out"
echo "image: $out ($(du -k "$out" | cut -f1) KiB; oci-archive:$out:$version)"
