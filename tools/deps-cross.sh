#!/bin/sh
# Install what cross-building hopblas for ARM and packaging it need on Debian 12
# (tools/cross-check.sh, test/package.test): the armhf and arm64 cross
# compilers, the target's OpenBLAS and OpenCL ICD loader (multiarch), qemu-user-static
# to run the results, and the Debian packaging tools.  Skips what is there.
# Run as root, or as a user who may sudo.
set -eu

arches="armhf arm64"
packages="gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu qemu-user-static
  libc6-dev-armhf-cross libc6-dev-arm64-cross dpkg-dev debhelper fakeroot lintian
  libopenblas-dev:armhf libopenblas-dev:arm64
  ocl-icd-opencl-dev:armhf ocl-icd-opencl-dev:arm64"
# The netlib testers for the targets: wanted, not required (a mirror may lack them).
optional="libblas-test:armhf libblas-test:arm64"

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

new_arch=""
for a in $arches; do
  dpkg --print-foreign-architectures | grep -qx "$a" || new_arch="$new_arch $a"
done
for a in $new_arch; do
  $sudo dpkg --add-architecture "$a"
done

missing=""
for p in $packages; do installed "$p" || missing="$missing $p"; done
want=""
for p in $optional; do installed "$p" || want="$want $p"; done
[ -z "$missing$want" ] && exit 0

echo "hopblas: installing$missing$want"
# A mirror caught mid-sync fails one index (seen on bookworm-security's armhf
# list); what the others list still installs.
$sudo apt-get update -qq || echo "hopblas: apt-get update reported errors; installing from the indexes it has"
# shellcheck disable=SC2086
[ -z "$missing" ] || $sudo apt-get install -y -qq --no-install-recommends $missing
for p in $want; do
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq --no-install-recommends "$p" ||
    echo "hopblas: $p could not be installed; the cross netlib testers will be skipped"
done
