#!/usr/bin/env bash
# wip: host API costs, then the small inputs' pipelines (main's library), then a CUPTI trace.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
d=.devstage/d
fmt_dir=$(dirname "$(find .devstage/prefix/usr -name 'libfmt.so*' | head -1)")
export LD_LIBRARY_PATH="$d:$fmt_dir"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
.devstage/host_costs > "$OUT/host_costs.txt" 2>&1; cat "$OUT/host_costs.txt"
for r in 1 2 3; do
  $d/spgemm-bench --dir .devstage/s --reps 50 --warmup 5 --no-cusparse --csv /tmp/b$r.csv > /tmp/b$r.txt 2>&1 || tail -5 /tmp/b$r.txt
done
for r in 1 2 3; do awk -v t="main$r" 'NR==1{print "run," $0; next}{print t "," $0}' /tmp/b$r.csv | { [ $r = 1 ] && cat || tail -n +2; }; done > "$OUT/small.csv"
CUDA_INJECTION64_PATH=$PWD/$d/libspgemm-trace.so SPGEMM_TRACE=/tmp/trace.csv \
  $d/spgemm-bench --dir .devstage/s --reps 20 --warmup 2 --no-cusparse > /tmp/tr.txt 2>&1 || tail -5 /tmp/tr.txt
xz -T4 -c /tmp/trace.csv > $OUT/trace.csv.xz; python3 bench/trace_timeline.py /tmp/trace.csv --kernels | head -12; ls -la $OUT
python3 bench/ab_table.py "$OUT/small.csv" --field lib_analyze_ms --field lib_symbolic_ms --field lib_numeric_ms --field lib_total_ms --medians 2>&1 | tail -20
