#!/bin/sh
# Build an OCI image of informer-proxy from scratch, offline, with
# Debian's umoci (no container engine, no registry, no network), for
# linux/amd64 and linux/arm64. Each architecture's root filesystem holds:
#
#   /usr/local/bin/informer-proxy   the binary, stripped
#   the shared libraries the binary needs (ldd, or for arm64 the arm64
#   loader's --list under qemu-aarch64-static), each at the path the
#   loader prints, with the symlinks that lead there (/lib -> usr/lib as
#   on Debian 12) and the dynamic loader; nothing else, no shell
#   /etc/ssl/certs/ca-certificates.crt   libcurl's CA bundle
#   /etc/passwd, /etc/group        root and nonroot (65532)
#   /etc/os-release                the Debian release the libraries are from
#   /usr/share/doc/informer-proxy/LICENSE
#   /usr/share/doc/informer-proxy/sbom.spdx.json   SPDX 2.3: the binary and
#                                  every Debian package a file came from
#   /usr/share/doc/PKG/copyright   each of those packages' copyright file
#                                  (the LGPL notices of the libraries)
#   /var/lib/dpkg/status.d/PKG     each package's dpkg status entry, where
#                                  image scanners look for the package list
#   /tmp                           1777
#
# The Debian packages are this machine's: the amd64 ones the native build
# links, the arm64 ones from dpkg's arm64 architecture (scripts/deps.sh
# image installs them). The host must be amd64.
#
# The config runs the binary as 65532:65532 with PATH=/usr/local/bin (so
# the chart's exec probe "informer-proxy --probe URL" resolves) and the
# org.opencontainers.image.* labels: title, version, licenses, revision
# (the git commit, absent outside git), source (IMAGE_SOURCE, absent
# unless set).
#
# Reproducible: the same inputs give the same bytes. Every time in it is
# SOURCE_DATE_EPOCH (default: the commit's time, or 0 outside git): the
# files' mtimes, the config's created and history, the SBOM's created;
# entries are sorted, owned by 0:0, with fixed modes; gzip writes no time.
#
# The result is an OCI layout in one tar: the tag VERSION is an image
# index naming both architectures (what a registry serves as a
# multi-platform image), VERSION-amd64 and VERSION-arm64 each one
# manifest. skopeo calls it oci-archive:FILE:VERSION. Beside FILE, the
# SBOMs: FILE without .oci.tar, then -amd64.spdx.json / -arm64.spdx.json.
#
#   scripts/image.sh [OUT]   OUT defaults to build/informer-proxy-VERSION.oci.tar
#   BIN=path                 the amd64 binary (default bin/informer-proxy)
#   BIN_ARM64=path           the arm64 binary (default build/arm64/bin/informer-proxy,
#                            make build/arm64/bin/informer-proxy)
#   IMAGE_SOURCE=url         the source label (default: none)
#   SOURCE_DATE_EPOCH=secs   every timestamp (default: the commit's time)
set -eu
cd "$(dirname "$0")/.."

version=$(cat VERSION)
out=${1:-build/informer-proxy-$version.oci.tar}
commit=$(git rev-parse HEAD 2>/dev/null || true)
source=${IMAGE_SOURCE:-}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || true)}
epoch=${epoch:-0}
sbom_base=${out%.tar}
sbom_base=${sbom_base%.oci}

die() {
	echo "image.sh: $*" >&2
	exit 1
}
for t in umoci jq dpkg-query qemu-aarch64-static aarch64-linux-gnu-strip; do
	command -v $t >/dev/null || die "$t is needed (scripts/deps.sh image installs it)"
done
[ "$(dpkg --print-architecture)" = amd64 ] || die "the host must be amd64"
case $epoch in
*[!0-9]*) die "SOURCE_DATE_EPOCH=$epoch is not a number of seconds" ;;
esac
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
ca=/etc/ssl/certs/ca-certificates.crt
[ -f "$ca" ] || die "$ca is missing (the ca-certificates package)"

work=$(mktemp -d "${TMPDIR:-/tmp}/informer-proxy-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
umask 022

# put PATH into $root as it is on this machine: a symlink as a symlink
# (its parent directories' symlinks too, e.g. /lib -> usr/lib), then what
# it points to, until a regular file, whose host path goes into $copied.
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
		echo "$rdir/$name" >>"$copied"
	fi
}

# owners FILE: for each host path in FILE, "PKG PATH" with the Debian
# package (NAME:ARCH, or NAME for an arch-less one) that owns it, asked of
# dpkg in one go. dpkg records a library under /lib or /usr/lib, as its
# package shipped it, so both spellings are asked.
owners() {
	# shellcheck disable=SC2046
	dpkg -S $(sed 's|^/usr||' "$1" | sed 'p; s|^|/usr|') 2>/dev/null |
		grep -v '^diversion' >"$1.dpkg" || true
	awk 'NR == FNR { i = index($0, ": "); own[substr($0, i + 2)] = substr($0, 1, i - 1); next }
	{
		p = $0; q = p; sub(/^\/usr/, "", q); r = "/usr" q
		o = (p in own) ? own[p] : (q in own) ? own[q] : (r in own) ? own[r] : ""
		if (o == "") {
			print "image.sh: no Debian package owns " p " (dpkg -S): the SBOM would be incomplete" >"/dev/stderr"
			exit 1
		}
		print o, p
	}' "$1.dpkg" "$1"
}

# rootfs ARCH BIN: the root filesystem in $work/rootfs-ARCH and its SBOM.
rootfs() {
	arch=$1
	bin=$2
	root=$work/rootfs-$arch
	copied=$work/copied-$arch
	: >"$copied"
	[ -x "$bin" ] || die "$bin is not built (make image builds it)"
	machine=$(LC_ALL=C readelf -h "$bin" | sed -n 's/^ *Machine: *//p')
	case $arch in
	amd64)
		want="Advanced Micro Devices X86-64"
		list="ldd"
		strip=strip
		;;
	arm64)
		want="AArch64"
		list="qemu-aarch64-static /lib/ld-linux-aarch64.so.1 --list"
		strip=aarch64-linux-gnu-strip
		;;
	esac
	[ "$machine" = "$want" ] || die "$bin is for $machine, not $arch"
	mkdir -p "$root/usr/local/bin" "$root/etc/ssl/certs" "$root/tmp" \
		"$root/usr/share/doc/informer-proxy" "$root/var/lib/dpkg/status.d"

	# the loader's "name => /path (addr)" lines, and its own "/path (addr)".
	libs=$($list "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}')
	[ -n "$libs" ] || die "$list names no library for $bin: not a dynamic binary?"
	for l in $libs; do
		put "$l"
	done
	$strip --strip-unneeded -o "$root/usr/local/bin/informer-proxy" "$bin"
	cp "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
	cp -L /etc/os-release "$root/etc/os-release"
	cp LICENSE "$root/usr/share/doc/informer-proxy/LICENSE"
	printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' \
		>"$root/etc/passwd"
	printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"

	# The packages: each copied file's owner, and ca-certificates, whose
	# bundle is generated from its certificates (no package owns it).
	owners "$copied" >"$copied.owners"
	pkgs=$( (
		cut -d' ' -f1 "$copied.owners"
		echo ca-certificates
	) | sort -u)
	bsum=$(sha256sum "$root/usr/local/bin/informer-proxy" | cut -d' ' -f1)
	jq -n --arg v "$version" --arg src "${source:-NOASSERTION}" --arg sum "$bsum" '{
		SPDXID: "SPDXRef-Package-informer-proxy", name: "informer-proxy",
		versionInfo: $v, downloadLocation: $src, filesAnalyzed: false,
		primaryPackagePurpose: "APPLICATION",
		licenseConcluded: "Apache-2.0", licenseDeclared: "Apache-2.0",
		copyrightText: "NOASSERTION",
		checksums: [{algorithm: "SHA256", checksumValue: $sum}]}' >"$work/pkgs-$arch.json"
	for p in $pkgs; do
		name=${p%%:*}
		pver=$(dpkg-query -W -f='${Version}' "$p")
		parch=$(dpkg-query -W -f='${Architecture}' "$p")
		psrc=$(dpkg-query -W -f='${source:Package}' "$p")
		doc=/usr/share/doc/$name/copyright
		[ -f "$doc" ] || die "$p has no $doc"
		mkdir -p "$root/usr/share/doc/$name"
		cp -L "$doc" "$root/usr/share/doc/$name/copyright"
		dpkg-query -s "$p" >"$root/var/lib/dpkg/status.d/$name"
		files=$(awk -v p="$p" '$1 == p {print $2}' "$copied.owners" | sort | tr '\n' ' ')
		jq -n --arg n "$name" --arg v "$pver" --arg a "$parch" --arg s "$psrc" \
			--arg files "${files% }" '{
			SPDXID: ("SPDXRef-Package-deb-" + ($n | gsub("[^A-Za-z0-9.]"; "-")) + "-" + $a),
			name: $n, versionInfo: $v, supplier: "Organization: Debian",
			downloadLocation: "NOASSERTION", filesAnalyzed: false,
			sourceInfo: ("Debian source package " + $s
				+ (if $files == "" then "" else "; copied: " + $files end)),
			licenseConcluded: "NOASSERTION", licenseDeclared: "NOASSERTION",
			copyrightText: "NOASSERTION",
			externalRefs: [{referenceCategory: "PACKAGE-MANAGER", referenceType: "purl",
				referenceLocator: ("pkg:deb/debian/" + $n + "@" + ($v | @uri)
					+ "?arch=" + $a + "&distro=debian-12")}]}' >>"$work/pkgs-$arch.json"
	done
	jq -s --arg name "informer-proxy-$version-linux-$arch" --arg created "$created" \
		--arg ns "https://spdx.org/spdxdocs/informer-proxy-$version-$arch-${commit:-nogit}" '{
		spdxVersion: "SPDX-2.3", dataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		name: $name, documentNamespace: $ns,
		creationInfo: {created: $created, creators: ["Tool: informer-proxy-scripts-image.sh"]},
		packages: .,
		relationships: ([{spdxElementId: "SPDXRef-DOCUMENT", relationshipType: "DESCRIBES",
			relatedSpdxElement: "SPDXRef-Package-informer-proxy"}]
			+ [.[1:][] | {spdxElementId: "SPDXRef-Package-informer-proxy",
				relationshipType: "DEPENDS_ON", relatedSpdxElement: .SPDXID}])}' \
		"$work/pkgs-$arch.json" >"$root/usr/share/doc/informer-proxy/sbom.spdx.json"
	cp "$root/usr/share/doc/informer-proxy/sbom.spdx.json" "$work/sbom-$arch.spdx.json"

	# Fixed owners, modes and times, whatever the umask and the clock.
	chown -R -h 0:0 "$root"
	find "$root" -type d -exec chmod 0755 {} +
	find "$root" -type f -perm -u+x -exec chmod 0755 {} +
	find "$root" -type f ! -perm -u+x -exec chmod 0644 {} +
	chmod 1777 "$root/tmp"
	find "$root" -exec touch -h -d "@$epoch" {} +
}

layout=$work/oci
umoci init --layout "$layout"
for arch in amd64 arm64; do
	case $arch in
	amd64) bin=${BIN:-bin/informer-proxy} ;;
	arm64) bin=${BIN_ARM64:-build/arm64/bin/informer-proxy} ;;
	esac
	rootfs $arch "$bin"
	tag=$version-$arch
	umoci new --image "$layout:$tag"
	umoci unpack --image "$layout:$tag" "$work/bundle-$arch" >/dev/null
	rmdir "$work/bundle-$arch/rootfs"
	mv "$work/rootfs-$arch" "$work/bundle-$arch/rootfs"
	umoci repack --image "$layout:$tag" \
		--history.created "$created" --history.created_by "scripts/image.sh" \
		--history.author "informer-proxy" "$work/bundle-$arch"
	set -- --config.label "org.opencontainers.image.title=informer-proxy" \
		--config.label "org.opencontainers.image.version=$version" \
		--config.label "org.opencontainers.image.licenses=Apache-2.0"
	[ -z "$commit" ] || set -- "$@" --config.label "org.opencontainers.image.revision=$commit"
	[ -z "$source" ] || set -- "$@" --config.label "org.opencontainers.image.source=$source"
	umoci config --image "$layout:$tag" --no-history \
		--created "$created" --os linux --architecture $arch \
		--author "informer-proxy" \
		--config.user 65532:65532 \
		--config.entrypoint /usr/local/bin/informer-proxy \
		--config.workingdir / \
		--config.env PATH=/usr/local/bin \
		--manifest.annotation "org.opencontainers.image.version=$version" \
		"$@"
done
umoci gc --layout "$layout"

# The index under the tag VERSION: both manifests with their platforms.
idx=$work/index-blob.json
{
	for arch in amd64 arm64; do
		jq -c --arg t "$version-$arch" --arg a "$arch" '.manifests[]
			| select(.annotations["org.opencontainers.image.ref.name"] == $t)
			| {mediaType, digest, size, platform: ({os: "linux", architecture: $a}
				+ (if $a == "arm64" then {variant: "v8"} else {} end))}' "$layout/index.json"
	done
} | jq -s -c --arg v "$version" '{schemaVersion: 2,
	mediaType: "application/vnd.oci.image.index.v1+json", manifests: .,
	annotations: {"org.opencontainers.image.version": $v}}' >"$idx"
[ "$(jq '.manifests | length' "$idx")" = 2 ] || die "umoci's index lacks a manifest"
isum=$(sha256sum "$idx" | cut -d' ' -f1)
cp "$idx" "$layout/blobs/sha256/$isum"
jq -c --arg v "$version" --arg d "sha256:$isum" --argjson n "$(wc -c <"$idx")" '
	.manifests |= ([{mediaType: "application/vnd.oci.image.index.v1+json", digest: $d,
		size: $n, annotations: {"org.opencontainers.image.ref.name": $v}}]
		+ sort_by(.annotations["org.opencontainers.image.ref.name"]))' \
	"$layout/index.json" >"$work/index.json"
mv "$work/index.json" "$layout/index.json"

mkdir -p "$(dirname "$out")"
(cd "$layout" && tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
	--mode=u+rw,go-w,a+rX --format=gnu -cf - oci-layout index.json blobs) >"$out.tmp"
mv "$out.tmp" "$out"
for arch in amd64 arm64; do
	cp "$work/sbom-$arch.spdx.json" "$sbom_base-$arch.spdx.json"
done
echo "image: $out ($(du -k "$out" | cut -f1) KiB; oci-archive:$out:$version, sha256:$isum)"
echo "sbom: $sbom_base-amd64.spdx.json $sbom_base-arm64.spdx.json"
