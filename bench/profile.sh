#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nsight Compute summary of libspgemm's kernels on a few inputs (device machine).
# Usage: bench/profile.sh [bench inputs...]   e.g. --gen uniform:500000:8
# Environment: PROFILE_KERNELS, the kernels' names as ncu's regex (default
# the hash and dense kernels); PROFILE_LAUNCHES, how many (default 12).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
export PATH="$PATH:/usr/local/cuda/bin"
if [ ! -x build/bench/spgemm-bench ]; then
  cmake --preset default -DCMAKE_PREFIX_PATH="$root/.devstage/prefix/usr" > "$OUT/build.log" 2>&1 &&
    cmake --build --preset default -j 16 --target spgemm-bench >> "$OUT/build.log" 2>&1 || {
      tail -20 "$OUT/build.log"; exit 1; }
fi
inputs=("$@"); [ ${#inputs[@]} -gt 0 ] || inputs=(--gen uniform:500000:8)
ncu --clock-control none --kernel-name regex:"${PROFILE_KERNELS:-hash_numeric|hash_symbolic|dense_}" \
  --launch-count "${PROFILE_LAUNCHES:-12}" --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section WarpStateStats --csv --page details \
  build/bench/spgemm-bench "${inputs[@]}" --reps 1 --warmup 0 --no-cusparse \
  > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
python3 - "$OUT/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr, rows = rows[0], rows[1:]
ix = {h: i for i, h in enumerate(hdr)}
kernels = collections.OrderedDict()
for r in rows:
    key = (r[ix["ID"]], r[ix["Kernel Name"]].split("(")[0][-60:])
    kernels.setdefault(key, {})[r[ix["Metric Name"]]] = (r[ix["Metric Value"]], r[ix["Metric Unit"]])
for (i, name), m in kernels.items():
    d = m.get("Duration", ("0", ""))
    print(f"{i} {name} {d[0]} {d[1]}")
    print("   " + " | ".join(f"{k}={v[0]}{v[1]}" for k, v in m.items() if k != "Duration"))
PY
