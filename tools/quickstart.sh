#!/bin/sh
# README Quick start, first command: install, build, run the main job.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/tools/build.sh"
sh "$top/tools/demo.sh"
