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
#
# bench/device_reuse.sh --layouts [BUILD_DIR] [MATRIX_DIR]: step 1 alone,
# once per index layout and precision: LAYOUTS (default "32 64/32 64/64")
# times PRECISIONS (default "double float cdouble"), extra spgemm-bench
# arguments in BENCH_ARGS. Writes reuse-PRECISION-LAYOUT.csv and .txt per
# combination (LAYOUT with '-' for '/') and layouts.txt, bench/layout_table.py
# on every reuse-*.csv in $OUT: libspgemm's 64/32 and 64/64 times over
# 32/32, its fp64 times over fp32, each against cuSPARSE in the same layout.
# A combination takes about as long as step 1 (60-90 s on an H100 or H200
# for the 27 inputs); split the nine over calls with PRECISIONS, e.g.
# PRECISIONS=double, and run layout_table.py on all the CSVs afterwards.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
layouts=0
if [ "${1:-}" = --layouts ]; then layouts=1; shift; fi
build=${1:-$root/build}
matrices=${2:-${SPGEMM_MATRIX_DIR:-$root/.devstage/matrices}}
rc=0
if [ $layouts = 1 ]; then
  for precision in ${PRECISIONS:-double float cdouble}; do
    for layout in ${LAYOUTS:-32 64/32 64/64}; do
      name="reuse-$precision-${layout//\//-}"
      echo "== --precision $precision --index $layout"
      # shellcheck disable=SC2086  # BENCH_ARGS: several arguments
      "$build/bench/spgemm-bench" --reuse --precision "$precision" --index "$layout" \
        --dir "$matrices" --all-generators ${BENCH_ARGS:-} --csv "$OUT/$name.csv" \
        > "$OUT/$name.txt" 2>&1 || rc=1
      tail -n 1 "$OUT/$name.txt"
    done
  done
  python3 "$root/bench/layout_table.py" "$OUT"/reuse-*.csv | tee "$OUT/layouts.txt"
  exit $rc
fi
"$build/bench/spgemm-bench" --reuse --dir "$matrices" --all-generators --csv "$OUT/reuse.csv" \
  > "$OUT/reuse.txt" 2>&1 || rc=1
python3 "$root/bench/reuse_table.py" "$OUT/reuse.csv" | tee -a "$OUT/reuse.txt"
for kind in plain smoothed; do
  "$build/bench/spgemm-amg-bench" $([ $kind = smoothed ] && echo --smoothed) \
    --csv "$OUT/amg-$kind.csv" "$matrices"/*.mtx.gz poisson2d:700 stencil27:64 \
    2>&1 | tee -a "$OUT/amg.txt" || rc=1
done
exit $rc
