#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One call on the device machine: build, the whole CTest suite (GPU tests
# running), spgemm-bench on every real matrix and generator family, then
# tests/sanitize.sh (memcheck, racecheck, synccheck, initcheck: their runs in
# one pool of a process a core). Logs and CSV/JSON go to $OUT.
# Usage (device tool, carry [".devstage"]):  bench/device_run.sh [quick]
#   quick: no sanitizers.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
prefix="$root/.devstage/prefix/usr"; matrices="$root/.devstage/matrices"
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"

# the device image has gfortran-13 but no plain gfortran
fortran=$(command -v gfortran || command -v gfortran-13 || true)
cmake --preset default -DCMAKE_PREFIX_PATH="$prefix" -DSPGEMM_MATRIX_DIR="$matrices" \
  ${fortran:+-DCMAKE_Fortran_COMPILER="$fortran"} > "$OUT/build.log" 2>&1 &&
  cmake --build --preset default -j 16 >> "$OUT/build.log" 2>&1
build_rc=$?; tail -3 "$OUT/build.log"
[ $build_rc -eq 0 ] || { grep -m20 -E "error|Error" "$OUT/build.log"; exit 1; }

ctest --preset default -j 4 2>&1 | tee "$OUT/ctest.log" | tail -30
ctest_rc=${PIPESTATUS[0]}
build/tests/gpu/test_gpu_random 2>&1 | grep -iE "seed|cases|families" | head -5 | tee "$OUT/random.txt"

build/bench/spgemm-bench --dir "$matrices" --all-generators --csv "$OUT/bench.csv" \
  --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
bench_rc=$?

san_rc=0
if [ "${1:-}" != "quick" ]; then
  # the four tools' runs in one pool, a process a core
  SANITIZE_JOBS=$(nproc) SANITIZE_TIMEOUT=400 bash tests/sanitize.sh build "$OUT/sanitize" \
    > "$OUT/sanitize.txt" 2>&1
  sed -n '/summary/,$p' "$OUT/sanitize.txt"
  grep -q "all clean" "$OUT/sanitize.txt" || san_rc=1
fi
tail -40 "$OUT/bench.txt"
echo "build=$build_rc ctest=$ctest_rc sanitizers=$san_rc bench=$bench_rc"
