#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where libspgemm's time goes across value types and index layouts: each
# input's product in fp64 32/32, fp32 32/32, fp64 64/32 and fp64 64/64, one
# after the other on the GPU, each under the CUPTI trace (bench/trace/), then
# each kernel's time per run of fp32 and of the 64-bit layouts against fp64
# 32/32 (bench/trace_timeline.py --against).
# Usage (device machine): bench/layout_traces.sh [BIN_DIR] [INPUT...]
#   BIN_DIR (default build/bench): spgemm-bench and libspgemm-trace.so, beside
#   libspgemm.so.0 or with it on LD_LIBRARY_PATH (bench/pack_binaries.sh);
#   INPUT: a matrix file or a generator spec (default the generated inputs
#   of at least 10M products and those of SPGEMM_MATRIX_DIR named below).
# Writes to $OUT (default /tmp/out): traces.tgz (every trace and bench
# log) and layout-traces.txt (the bench's line per run and the comparisons).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/build/bench}" && pwd); shift $(($# > 0 ? 1 : 0))
matrices=${SPGEMM_MATRIX_DIR:-$root/.devstage/matrices}
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(uniform:500000:8 banded:500000:16 stencil27:64 rmat:16:16
  "$matrices/bcsstk33.mtx.gz" "$matrices/astro-ph.mtx.gz" "$matrices/cryg2500.mtx.gz"
  "$matrices/cage9.mtx.gz")
configs=("double 32" "float 32" "double 64/32" "double 64/64")
reps=5 warmup=1
traces=$(mktemp -d)
for input in "${inputs[@]}"; do
  if [ -e "$input" ]; then args=("$input"); else args=(--gen "$input"); fi
  base=$(basename "$input"); base=${base%.mtx.gz}; base=${base//:/_}
  for config in "${configs[@]}"; do
    read -r precision layout <<<"$config"
    name=$base-$precision-${layout//\//_}
    CUDA_INJECTION64_PATH=$bin/libspgemm-trace.so SPGEMM_TRACE=$traces/$name.csv \
      "$bin/spgemm-bench" "${args[@]}" --precision "$precision" --index "$layout" \
      --reps $reps --warmup $warmup --no-cusparse > "$traces/$name.txt" 2>&1
    echo "$name rc=$? $(grep -m1 -E '^[A-Za-z0-9_:.-]+ +[0-9]+ ' "$traces/$name.txt")"
  done
  for other in "float 32" "double 64/32" "double 64/64"; do
    read -r precision layout <<<"$other"
    echo "== $base: fp64 32/32 (trace) against $precision ${layout} (other)"
    # (the trace records GPU work only: none on a machine without a GPU)
    [ -s "$traces/$base-double-32.csv" ] || { echo "no trace"; continue; }
    python3 "$root/bench/trace_timeline.py" "$traces/$base-double-32.csv" --runs $((reps + warmup)) \
      --against "$traces/$base-$precision-${layout//\//_}.csv"
  done
done | tee "$OUT/layout-traces.txt"
tar czf "$OUT/traces.tgz" -C "$traces" .
rm -rf "$traces"
