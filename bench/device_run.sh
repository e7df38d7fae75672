#!/usr/bin/env bash
# One call on the device machine: build, the whole CTest suite (GPU tests
# running), compute-sanitizer memcheck on the GPU tests, and spgemm-bench on
# every real matrix and generator family. Logs and CSV/JSON go to $OUT.
# Usage (device tool, carry [".devstage"]):  bench/device_run.sh [quick]
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
prefix="$root/.devstage/prefix/usr"; matrices="$root/.devstage/matrices"
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"

cmake --preset default -DCMAKE_PREFIX_PATH="$prefix" -DSPGEMM_MATRIX_DIR="$matrices" \
  > "$OUT/build.log" 2>&1 && cmake --build --preset default -j 16 >> "$OUT/build.log" 2>&1
build_rc=$?; tail -5 "$OUT/build.log"
[ $build_rc -eq 0 ] || { grep -m20 -E "error|Error" "$OUT/build.log"; exit 1; }

ctest --preset default -j 4 2>&1 | tee "$OUT/ctest.log" | tail -15
ctest_rc=${PIPESTATUS[0]}

san_rc=0
if [ "${1:-}" != "quick" ]; then
  # test_gpu_spgemm reaches every kernel (all hash bins and both dense-window
  # kernels); the real-matrix test would take too long under the sanitizer.
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 99 build/tests/gpu/test_gpu_spgemm \
      > "$OUT/$tool.log" 2>&1
    rc=$?; echo "$tool test_gpu_spgemm: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1)"
    [ $rc -eq 0 ] || san_rc=$rc
  done
fi

build/bench/spgemm-bench --dir "$matrices" --all-generators --csv "$OUT/bench.csv" \
  --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
bench_rc=$?
cat "$OUT/bench.txt" | tail -40
echo "build=$build_rc ctest=$ctest_rc memcheck=$san_rc bench=$bench_rc"
