#!/usr/bin/env bash
# wip: one library, four configurations in turn (knobs SPGEMM_EXP_RUNTIME_LAUNCH, SPGEMM_EXP_NO_ZEROED):
# base (runtime launches, memset), drv (driver launches), zer (zeroed counters), both.
# First the small-product tests, then the A/B, then (SUITE=1) the GPU suite (+ SANITIZE=sanitize).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
d=.devstage/d; rounds=${1:-3}; shift
fmt_dir=$(dirname "$(find .devstage/prefix/usr -name 'libfmt.so*' | head -1)")
export LD_LIBRARY_PATH="$PWD/$d:$fmt_dir"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $d/test_gpu_spgemm "GPU small*" > "$OUT/small-tests.txt" 2>&1; echo "small tests rc=$? $(tail -2 $OUT/small-tests.txt | head -1)"
t0=$SECONDS
for r in $(seq 1 "$rounds"); do
  for v in base drv zer both; do
    unset SPGEMM_EXP_RUNTIME_LAUNCH SPGEMM_EXP_NO_ZEROED
    case $v in base) export SPGEMM_EXP_RUNTIME_LAUNCH=1 SPGEMM_EXP_NO_ZEROED=1;; drv) export SPGEMM_EXP_NO_ZEROED=1;;
      zer) export SPGEMM_EXP_RUNTIME_LAUNCH=1;; esac
    $d/spgemm-bench "$@" --csv /tmp/$v$r.csv > /tmp/$v$r.txt 2>&1 || { echo "run $v$r failed"; tail -5 /tmp/$v$r.txt; }
  done
done
unset SPGEMM_EXP_RUNTIME_LAUNCH SPGEMM_EXP_NO_ZEROED
echo "bench: $((SECONDS - t0)) s"
for r in $(seq 1 "$rounds"); do for v in base drv zer both; do
  awk -v t="$v$r" 'NR==1{print "run," $0; next}{print t "," $0}' /tmp/$v$r.csv; done; done > "$OUT/ab.csv"
grep -h "disagreed" /tmp/*[0-9].txt | sort | uniq -c
cp /tmp/both1.txt "$OUT/ab-both1.txt"
if [ -n "${SUITE:-}" ]; then
  SUITE_JOBS=4 bash bench/device_suite.sh $d ${SANITIZE:-} > "$OUT/suite-all.txt" 2>&1
  tail -22 "$OUT/suite-all.txt"
fi
python3 bench/ab_table.py "$OUT/ab.csv" --field lib_total_ms --field lib_symbolic_ms --medians
