#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The cost of loading a library's device code: the wall time of a whole
# process that makes one small product on the GPU (build/examples/gpu_product:
# CUDA's start, the library's load, its first kernels), run ROUNDS times with
# each library folder in turn (each holding a libspgemm.so.0), and the median
# of each. Two libraries of different fatbins (size, compression) compare
# what their loads cost.
# Usage (on the device machine, after a build): bench/first_call.sh DIR... [--rounds N]
set -euo pipefail
rounds=15
dirs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || { echo "usage: bench/first_call.sh DIR... [--rounds N]" >&2; exit 2; }
example=build/examples/gpu_product
for _ in $(seq 1 "$rounds"); do
  for d in "${dirs[@]}"; do
    start=$(date +%s%N)
    LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$example" > /dev/null
    echo "$d $((($(date +%s%N) - start) / 1000))"
  done
done | python3 -c '
import statistics, sys
runs = {}
for line in sys.stdin:
    d, us = line.split()
    runs.setdefault(d, []).append(int(us) / 1000)
for d, ms in runs.items():
    print(f"{d}: median {statistics.median(ms):.1f} ms, min {min(ms):.1f}, max {max(ms):.1f} "
          f"({len(ms)} processes)")
'
