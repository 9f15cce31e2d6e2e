#!/bin/sh
# Install what hopblas needs to build and test on Debian 12, skipping what is
# already there.  Run as root, or as a user who may sudo.
set -eu

packages="build-essential autoconf automake libtool pkg-config gfortran
  libopenblas-dev libopenblas0-pthread libblas-test liblapack-test
  libopenblas64-pthread-dev libopenblas64-0-pthread
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo oclgrind libclblast-dev
  python3-numpy python3-venv octave gnuplot-nox valgrind clang libclang-rt-14-dev
  openmpi-bin libopenmpi-dev libscalapack-openmpi-dev scalapack-mpi-test
  dpkg-dev debhelper fakeroot lintian"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "hopblas: installing$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
