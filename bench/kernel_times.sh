#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Duration of every libspgemm kernel for one bench input (device machine, after
# a build): bench/kernel_times.sh --gen rmat:16:16
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
ncu --clock-control none \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size --csv \
  build/bench/spgemm-bench "$@" --reps 1 --warmup 0 --no-cusparse 2>/dev/null |
  python3 -c '
import csv, sys, collections
rows = [r for r in csv.reader(sys.stdin) if len(r) > 10]
ix = {h: i for i, h in enumerate(rows[0])}
k = collections.OrderedDict()
for r in rows[1:]:
    key = (int(r[ix["ID"]]), r[ix["Kernel Name"]].split("(")[0].replace("void unnamed>::", ""))
    k.setdefault(key, {})[r[ix["Metric Name"]]] = r[ix["Metric Value"]]
for (i, name), m in k.items():
    grid, block = m.get("launch__grid_size", ""), m.get("launch__block_size", "")
    ns = m.get("gpu__time_duration.sum", "")
    print("%3d %-55s grid %7s block %5s %12s ns" % (i, name, grid, block, ns))
'
