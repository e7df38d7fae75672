#!/usr/bin/env bash
# wip: one library, launches through the runtime (SPGEMM_EXP_RUNTIME_LAUNCH=1, "rt")
# or the driver ("drv"), ROUNDS rounds in turn; then the GPU suite (+ sanitizers).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
d=.devstage/d; rounds=${1:-3}; shift
fmt_dir=$(dirname "$(find .devstage/prefix/usr -name 'libfmt.so*' | head -1)")
export LD_LIBRARY_PATH="$PWD/$d:$fmt_dir"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$SECONDS
for r in $(seq 1 "$rounds"); do
  for v in rt drv; do
    if [ $v = rt ]; then export SPGEMM_EXP_RUNTIME_LAUNCH=1; else unset SPGEMM_EXP_RUNTIME_LAUNCH; fi
    $d/spgemm-bench "$@" --csv /tmp/$v$r.csv > /tmp/$v$r.txt 2>&1 || { echo "run $v$r failed"; tail -5 /tmp/$v$r.txt; }
  done
done
unset SPGEMM_EXP_RUNTIME_LAUNCH
echo "bench: $((SECONDS - t0)) s"
for r in $(seq 1 "$rounds"); do for v in rt drv; do
  awk -v t="$v$r" 'NR==1{print "run," $0; next}{print t "," $0}' /tmp/$v$r.csv; done; done > "$OUT/ab.csv"
grep -i "mismatch\|differ\|FAIL" /tmp/drv1.txt | head -5
cp /tmp/drv1.txt "$OUT/ab-drv1.txt"
if [ -n "${SUITE:-}" ]; then
  SUITE_JOBS=4 bash bench/device_suite.sh $d ${SANITIZE:-} > "$OUT/suite-all.txt" 2>&1
  tail -25 "$OUT/suite-all.txt"
fi
python3 bench/ab_table.py "$OUT/ab.csv" --field lib_analyze_ms --field lib_symbolic_ms --field lib_numeric_ms --field lib_total_ms --medians
