#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU tests on the device machine from binaries built elsewhere (no build
# there): every test_gpu_* binary, SUITE_JOBS at a time (what `ctest -L gpu
# -j SUITE_JOBS` runs), each under a time limit; with `sanitize`, then
# tests/sanitize.sh's runs over the same binaries, one pool of a process a
# core. Logs go to $OUT: the table, the tests' last lines, the sanitizers'
# summary and their log folder (sanitize-logs.tgz: each run's cases.txt,
# finished.txt and case logs).
# Usage (device tool, carry [".devstage"]):  bench/device_suite.sh [BIN_DIR] [sanitize]
#   BIN_DIR (default .devstage/bin): the test binaries and libspgemm.so.0
#   side by side (bench/pack_binaries.sh); libfmt from .devstage/prefix
#   (../shared/device/stage.sh); the real matrices from SPGEMM_MATRIX_DIR
#   (default .devstage/matrices).
# Environment: SUITE_JOBS (3), SUITE_SECONDS (420 a binary; 0: no tests,
# only the sanitizers), SANITIZE_TIMEOUT (400 a process), SANITIZE_WALL (3600
# for all sanitizer runs together), SANITIZE_JOBS (nproc) and
# tests/sanitize.sh's SANITIZE_TOOLS, SANITIZE_BINARIES and SANITIZE_NAMES
# (default all).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
bin=$(cd "${1:-.devstage/bin}" && pwd)
export LD_LIBRARY_PATH="$bin:$root/.devstage/prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SPGEMM_MATRIX_DIR=${SPGEMM_MATRIX_DIR:-$root/.devstage/matrices}
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
logs=$(mktemp -d)

run_one() {  # binary -> one line: name, exit status (77: skipped), seconds, Catch2's verdict
  local t0=$SECONDS
  timeout "${SUITE_SECONDS:-420}" "$bin/$1" > "$logs/$1.txt" 2>&1
  local rc=$?
  echo "$1 rc=$rc $((SECONDS - t0)) s $(grep -E '^(All tests passed|test cases:|SKIPPED)' "$logs/$1.txt" | tail -1)"
}
export -f run_one; export bin logs
failed=0
if [ "${SUITE_SECONDS:-420}" -gt 0 ]; then
  start=$SECONDS
  (cd "$bin" && ls test_gpu_*) | xargs -P "${SUITE_JOBS:-3}" -I{} bash -c 'run_one {}' |
    sort > "$OUT/suite.txt"
  (cd "$logs" && tail -n 5 ./*.txt) > "$OUT/suite_tails.txt"
  echo "suite: $((SECONDS - start)) s"; cat "$OUT/suite.txt"
  failed=$(grep -cvE ' rc=(0|77) ' "$OUT/suite.txt")
fi

san_failed=0
if [ "${2:-}" = sanitize ]; then
  mkdir -p "$logs/build/tests/gpu"; ln -s "$bin"/test_gpu_* "$logs/build/tests/gpu/"
  SANITIZE_JOBS=${SANITIZE_JOBS:-$(nproc)} SANITIZE_TIMEOUT=${SANITIZE_TIMEOUT:-400} \
    SANITIZE_WALL=${SANITIZE_WALL:-3600} \
    bash tests/sanitize.sh "$logs/build" "$logs/san" > "$OUT/sanitize.txt" 2>&1
  tar czf "$OUT/sanitize-logs.tgz" -C "$logs" san
  sed -n '/summary/,$p; /^SKIPPED/p' "$OUT/sanitize.txt"
  grep -qE "all clean|^SKIPPED" "$OUT/sanitize.txt" || san_failed=1
fi
rm -rf "$logs"
echo "tests failed=$failed sanitizers_failed=$san_failed"
[ "$failed" -eq 0 ] && [ "$san_failed" -eq 0 ]
