#!/bin/sh
# Install the Debian packages the build and the tests need, and nothing
# else. On a machine that has them all it installs nothing and asks for
# nothing, so `make test` stays quiet and offline there.
#
#   scripts/deps.sh build   libraries and tools to compile
#   scripts/deps.sh test    build + the real clients used by the tests,
#                           and clang-format for make lint
#   scripts/deps.sh fuzz    build + clang 14 and its libFuzzer runtime
#   scripts/deps.sh image   build + umoci and the CA bundle for make image,
#                           jq for its SBOM, skopeo to push it, and for
#                           its arm64 half the cross compiler, Debian's
#                           arm64 libraries (dpkg --add-architecture
#                           arm64) and qemu-user to run it once
set -eu

build="build-essential pkg-config libmicrohttpd-dev libcurl4-openssl-dev
liburcu-dev libssl-dev libyaml-dev libjsmn-dev libjansson-dev zlib1g-dev libgnutls28-dev
libisal-dev curl"
# The arm64 image: the libraries the proxy links (the Makefile's
# ARM64_PKGS: zlib for ISA-L, whose Debian packages install for one
# architecture only), as Debian builds them for arm64 (jsmn is headers
# only: the native package serves both), the cross compiler, and qemu to
# run it once.
arm64="crossbuild-essential-arm64 qemu-user-static libmicrohttpd-dev:arm64
libcurl4-openssl-dev:arm64 liburcu-dev:arm64 libssl-dev:arm64 libyaml-dev:arm64
libgnutls28-dev:arm64 zlib1g-dev:arm64"
test="$build python3 python3-kubernetes openssl clang-format umoci skopeo ca-certificates prometheus jq $arm64"
fuzz="$build clang libclang-rt-14-dev"
image="$build umoci skopeo ca-certificates jq $arm64"
bench="$test wrk libyajl-dev libjson-c-dev libcjson-dev"

case "${1:-build}" in
build) want=$build ;;
test) want=$test ;;
fuzz) want=$fuzz ;;
image) want=$image ;;
bench) want=$bench ;;
*) echo "usage: $0 build|test|fuzz|bench|image" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run 'sudo $0 ${1:-build}' or install them by hand" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
case $missing in
*:arm64*)
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
	;;
esac
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
