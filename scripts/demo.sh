#!/bin/sh
# The main job on the embedded default: simulated devices, in-process,
# no root, no kernel module.  Usage: scripts/demo.sh BIN_DIR
set -eu
bin=${1:-build/bin}
echo "== the simulated devices"
"$bin/ccore-info" --sim devices=2,cores=4
echo
echo "== AllReduce across the simulated devices: 8 ranks, 8 B to 64 MiB, checked"
"$bin/ccore-bench" --op allreduce --ranks 8 -b 8 -e 64M -f 2 -n 10 -w 2 -c 1
