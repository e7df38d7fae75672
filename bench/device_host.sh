#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The host backend on the GPU machine's host, from binaries built elsewhere
# (no build there): docs/performance.md's host table (libspgemm and
# GraphBLAS with THREADS threads each, then SciPy on the same inputs) and,
# with HYBRID=1, docs/scaling.md's CPU+GPU split (the cost model's choice,
# then 1% of the products forced onto the host). Each step runs under a time
# limit so that what ran comes back. Logs and CSV go to $OUT.
# Usage (device tool, carry BIN_DIR, .devstage/prefix and the matrices):
#   bench/device_host.sh BIN_DIR [spgemm-bench inputs...]
#   BIN_DIR: spgemm-bench, spgemm-split-bench and libspgemm.so.0 side by side
#     (bench/pack_binaries.sh), and libgraphblas.so.7 or libgraphblas.so.7.xz
#     where spgemm-bench was built with GraphBLAS; libfmt from .devstage/prefix
#   inputs (default: --dir .devstage/matrices --all-generators --gen stencil27:48)
# Env: THREADS (default: nproc), HYBRID (default 1), TAG (file names: host-TAG.csv ...)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
bin=$(cd "${1:?usage: bench/device_host.sh BIN_DIR [inputs...]}" && pwd); shift
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(--dir .devstage/matrices --all-generators --gen stencil27:48)
threads=${THREADS:-$(nproc)}
tag=${TAG:-${threads}core}
libs=$(mktemp -d)
if [ -f "$bin/libgraphblas.so.7.xz" ]; then xz -dc "$bin/libgraphblas.so.7.xz" > "$libs/libgraphblas.so.7"; fi
export LD_LIBRARY_PATH="$bin:$libs:$root/.devstage/prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  echo "nproc $(nproc)"
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|L2|L3|MHz"
  echo "thp $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
  free -g | head -2
  echo "load before: $(cat /proc/loadavg)"
} > "$OUT/machine-$tag.txt" 2>&1
cat "$OUT/machine-$tag.txt"

log="$OUT/host-$tag.log"
timeout "${HOST_SECONDS:-300}" stdbuf -oL "$bin/spgemm-bench" --host --no-cusparse \
  --threads "$threads" --reps 5 --warmup 1 --huge-pages --csv "$OUT/host-$tag.csv" \
  --save-inputs "$libs/inputs" "${inputs[@]}" > "$log" 2>&1
echo "spgemm-bench rc=$? load after: $(cat /proc/loadavg)" | tee -a "$log"
timeout "${SCIPY_SECONDS:-200}" python3 bench/host_scipy.py --reps 5 --warmup 1 \
  --csv "$OUT/scipy-$tag.csv" "$libs"/inputs/*.mtx >> "$log" 2>&1
echo "host_scipy rc=$?" | tee -a "$log"
python3 bench/host_table.py "$OUT/host-$tag.csv" "$OUT/scipy-$tag.csv" | tee -a "$log"

if [ "${HYBRID:-1}" = 1 ]; then
  hybrid=(--gen rmat:16:16 --gen stencil27:64 --gen banded:500000:16)
  timeout "${SPLIT_SECONDS:-100}" "$bin/spgemm-split-bench" --devices 0,-1 --reps 5 --warmup 2 \
    --csv "$OUT/hybrid.csv" "${hybrid[@]}" >> "$log" 2>&1
  echo "split-bench (model) rc=$?" | tee -a "$log"
  timeout "${SPLIT_SECONDS:-100}" "$bin/spgemm-split-bench" --devices 0,-1 --shares 0.99,0.01 \
    --reps 5 --warmup 2 --csv "$OUT/hybrid-forced.csv" "${hybrid[@]}" >> "$log" 2>&1
  echo "split-bench (forced 1%) rc=$?" | tee -a "$log"
  cut -d, -f1-11 "$OUT"/hybrid*.csv
fi
rm -rf "$libs"
