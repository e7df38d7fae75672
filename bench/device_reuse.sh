#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Products whose values change, on a GPU machine, from a built tree:
#   1. spgemm-bench --reuse on every real matrix and generated family:
#      libspgemm's pipeline and numeric phase again against cuSPARSE's
#      structure-reuse family (bench/reuse_table.py makes the table)
#   2. spgemm-amg-bench: AMG's Galerkin product R*A*P on the square real
#      matrices and the generated stencils, P by plain and by smoothed
#      aggregation, set up and re-run, against the reuse family
# Usage: bench/device_reuse.sh [BUILD_DIR] [MATRIX_DIR]
# Writes to $OUT (default /tmp/out): reuse.csv, reuse.txt, amg-plain.csv,
# amg-smoothed.csv, amg.txt.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
matrices=${2:-${SPGEMM_MATRIX_DIR:-$root/.devstage/matrices}}
rc=0
"$build/bench/spgemm-bench" --reuse --dir "$matrices" --all-generators --csv "$OUT/reuse.csv" \
  > "$OUT/reuse.txt" 2>&1 || rc=1
python3 "$root/bench/reuse_table.py" "$OUT/reuse.csv" | tee -a "$OUT/reuse.txt"
for kind in plain smoothed; do
  "$build/bench/spgemm-amg-bench" $([ $kind = smoothed ] && echo --smoothed) \
    --csv "$OUT/amg-$kind.csv" "$matrices"/*.mtx.gz poisson2d:700 stencil27:64 \
    2>&1 | tee -a "$OUT/amg.txt" || rc=1
done
exit $rc
