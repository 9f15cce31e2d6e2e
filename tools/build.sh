#!/bin/sh
# Install what is missing, then configure and build hopblas in _build/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/tools/deps.sh"
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1
mkdir -p _build
cd _build
[ -f Makefile ] || ../configure -q
make -j"$(nproc)" >/dev/null
