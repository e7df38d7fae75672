#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzzes libspgemm's C API on the host backend for a bounded time:
# configures a separate Clang build of the library and tests/fuzz/fuzz_capi.cpp
# with libFuzzer coverage, ASan, UBSan and LeakSanitizer on all host code,
# builds only fuzz_capi, and runs it.
#
#   tests/fuzz/run_fuzz.sh [BUILD_DIR [SECONDS]]
#
# BUILD_DIR defaults to build-fuzz in the source tree (ignored by git),
# SECONDS to 60. The corpus grows in BUILD_DIR/fuzz-corpus across runs; it
# starts from a few seeds written to BUILD_DIR/fuzz-seeds. Exits 0 when
# nothing was found; otherwise prints the reproducer (under
# BUILD_DIR/fuzz-artifacts) with the command that replays it, and exits 1.
#
# Needs, besides the normal build's dependencies (.ci/install-deps): clang-14,
# libclang-rt-14-dev (libFuzzer and the sanitizer runtimes), libomp-14-dev
# (OpenMP for Clang) and llvm-14 (llvm-symbolizer, for readable reports).
# No GPU: spgemmCreate finds no device and the host backend runs.
#
# Environment: SPGEMM_FUZZ_VALID_ONLY=1 keeps the inputs' CSR structure valid;
# FUZZ_CXX picks the clang++; FUZZ_JOBS the build parallelism (default 2).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build-fuzz}
seconds=${2:-60}
case $seconds in '' | *[!0-9]*) echo "run_fuzz.sh: SECONDS must be a number" >&2; exit 2 ;; esac

cxx=${FUZZ_CXX:-$(command -v clang++-14 || command -v clang++ || true)}
[ -n "$cxx" ] || { echo "run_fuzz.sh: clang++ not found (apt-get install clang-14)" >&2; exit 2; }
export PATH=$PATH:/usr/local/cuda/bin  # nvcc, as in .ci/install-deps

# ---- configure and build ----------------------------------------------------
# Every C++ file, the library's included, gets coverage for libFuzzer and the
# sanitizers; UBSan findings abort. The CUDA files keep nvcc's default host
# compiler and no instrumentation: the host backend never runs them, so their
# kernels are built as PTX only (no ptxas: a numeric instance compiles in
# 63 s instead of 127 on the 2-core build machine).
sanitize="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
generator=()
[ -f "$build/CMakeCache.txt" ] || ! command -v ninja >/dev/null || generator=(-G Ninja)
mkdir -p "$build"
cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS="$sanitize -fno-omit-frame-pointer" \
  -DCMAKE_CUDA_ARCHITECTURES=90-virtual \
  -DSPGEMM_BUILD_FUZZ=ON -DSPGEMM_BUILD_BENCH=OFF >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log" >&2; exit 2; }
cmake --build "$build" --target fuzz_capi -j "${FUZZ_JOBS:-2}"
fuzzer=$build/tests/fuzz/fuzz_capi

# ---- seeds ---------------------------------------------------------------------
# A few inputs in fuzz_capi.cpp's format (bytes read in order; past the end
# every byte is 0). They only give the fuzzer a head start: any bytes are a
# valid input, so a change of the format makes them less useful, not wrong.
seeds=$build/fuzz-seeds
mkdir -p "$seeds"
# seed NAME HEX...: writes the bytes (an argument may hold several, space
# separated); "$(rep N HEX)" stands for N copies of one.
seed() {
  local name=$1 bytes
  shift
  read -r -a bytes <<<"$*"
  printf '%b' "$(printf '\\x%s' "${bytes[@]}")" >"$seeds/$name"
}
rep() { local i out=(); for ((i = 0; i < $1; ++i)); do out+=("$2"); done; echo "${out[*]}"; }
# Each starts with: value type (00 double, 01 float), index layout (00:
# 32/32 zero-based, c2: 64/64 one-based), m, k, n, operations (00: none),
# shape, misc (01: B = A), addend (c0: + beta * D).
# float 4x4 * 4x4: random rows with a repeated column, banded B; analyze,
# symbolic, C's arrays, numeric, new values of A and B, numeric, a query
seed float-4x4-phases 01 00 04 04 04 00 00 00 00 \
  00 03 01 03 01 00 02 00 03 04 03 02 01 00 "$(rep 9 05)" 00 \
  03 02 01 03 00 "$(rep 6 03)" 00 \
  00 00 00 00 00 \
  01 00 02 00 00 04 00 03 00 01 00 00 06 00 "$(rep 9 07)" 06 01 "$(rep 6 07)" \
  03 00 02 00 00 0c 00 02 ff
# the same with 64-bit offsets and columns, one-based
seed one-based-64 01 c2 04 04 04 00 00 00 00 \
  00 03 01 03 01 00 02 00 03 04 03 02 01 00 "$(rep 9 05)" 00 \
  03 02 01 03 00 "$(rep 6 03)" 00 \
  00 00 00 00 00 \
  01 00 02 00 00 04 00 03 00 01 00 00 06 00 "$(rep 9 07)" 06 01 "$(rep 6 07)" \
  03 00 02 00 00 0c 00 02 ff
# double 9x1 * 1x9 (outer product): full rows in A, one sorted row in B
seed double-outer 00 00 09 01 09 00 00 00 00 \
  02 "$(rep 9 01)" 00 \
  01 12 08 07 06 05 04 03 02 01 00 08 07 06 05 04 03 02 01 00 "$(rep 9 02)" 00 \
  00 00 00 00 00 00 01
# double A^T (A 2x3) * B^H (B 4x2, a repeated column); new values of A
seed transposed 00 00 03 02 04 89 00 00 00 \
  00 02 00 02 03 01 02 00 01 02 03 04 05 00 \
  01 02 01 00 01 01 00 02 00 00 06 07 08 09 00 \
  00 00 00 00 00 \
  00 01 06 00 01 02 03 04 05 00 03
# float C = alpha * A * B + beta * D, D with a repeated column; spgemmNumeric
# refused on such a plan, spgemmNumericWithAddend, new values of D
seed addend 01 00 03 03 03 00 00 00 c0 \
  03 01 01 01 01 02 03 00 \
  03 01 01 01 04 05 06 00 \
  00 02 02 02 00 01 00 07 08 09 00 \
  00 00 00 00 00 00 \
  00 11 03 00 01 02 07 03 00 01 02 00 06 02 01 02 03 03 00 01 02 00
# 3x3: A's offsets decrease (refused), repaired in place, then a product
seed repair-3x3 00 00 03 03 03 00 00 00 00 \
  03 01 02 01 "$(rep 4 01)" 0a 00 01 01 \
  02 "$(rep 9 04)" 00 \
  00 00 00 00 00 01 00 02 00 00 08 00 01 02 00 01 02 03 04 00 01
# float 300x300 band squared through one array (B = A): enough rows for the
# host backend's threads
seed band-300-squared 01 00 f0 22 01 f0 22 01 f0 22 01 00 00 01 00 \
  03 "$(rep 300 03)" "$(rep 900 01)" 00 \
  00 00 00 00 00 00 01
# double 2x2: input checks off and read back, a device allocator, queries, a
# plan on the other handle, A moved to device memory (refused) and back, the
# handle destroyed before its plan
seed odd-calls 00 00 02 02 02 00 00 00 00 \
  00 01 01 02 00 01 01 01 01 00 \
  00 01 01 02 00 01 01 01 01 00 \
  00 00 00 00 00 \
  0a 00 0a 18 0b 00 0c 01 00 0c 05 00 0d 03 00 02 \
  09 00 01 02 00 00 09 00 00 03 00 00 00 00 0f

# ---- fuzz ------------------------------------------------------------------------
corpus=$build/fuzz-corpus
artifacts=$build/fuzz-artifacts
mkdir -p "$corpus" "$artifacts"
# The CUDA runtime needs the shadow gap unprotected; leaks are checked after
# every input and at exit. Options already in the environment come last and win.
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# Two OpenMP threads share each product's rows (also on a one-core runner);
# idle threads sleep at once instead of spinning 200 ms on the cores the next
# input needs (3.5x more inputs per second on 2 cores).
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} KMP_BLOCKTIME=${KMP_BLOCKTIME:-0}
symbolizer=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
[ -z "$symbolizer" ] || export ASAN_SYMBOLIZER_PATH=$symbolizer
marker=$artifacts/.run-start
touch "$marker"
echo "run_fuzz.sh: fuzzing for ${seconds}s; corpus $corpus"
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=20 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$corpus" "$seeds" || status=$?
if [ "$status" -ne 0 ]; then
  echo "run_fuzz.sh: FAILED (fuzz_capi exited with $status)" >&2
  find "$artifacts" -type f -newer "$marker" \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) |
    while IFS= read -r f; do
      echo "run_fuzz.sh: reproducer: $f" >&2
      echo "run_fuzz.sh: replay with: SPGEMM_FUZZ_TRACE=1 ASAN_OPTIONS=protect_shadow_gap=0 $fuzzer $f" >&2
    done
  exit 1
fi
echo "run_fuzz.sh: no findings in ${seconds}s"
