#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The cuSPARSE drop-in (docs/dropin.md) on a GPU machine, in one call:
#   0. if BUILD_DIR has no dropin/libspgemm_cusparse.so (or DROPIN_BUILD=1):
#      configure (preset default, Catch2 and fmt from .devstage/prefix as
#      ../shared/device/stage.sh leaves them) and build the drop-in's targets
#   1. the drop-in's tests: units, the stub runs, the probe on the real
#      libcusparse, the documented sequences on generated matrices
#   2. NVIDIA's documented plain and reuse SpGEMM sequences on the shared real
#      matrices, every value type (s d c z) and index type (32 64), each run
#      on cuSPARSE and under LD_PRELOAD, compared (C, a real SpMV with C)
#   3. CuPy and PyTorch, unchanged, plain and under LD_PRELOAD: C compared,
#      the drop-in's log summarized
#   4. bench/dropin_bench.py: their A @ B timed with and without (CSV), on the
#      real matrices and the generated families in DROPIN_GENS
#   5. compute-sanitizer memcheck (leak check on) on both documented sequences
#      under LD_PRELOAD, on a real matrix, every value and index type
# Usage: bench/device_dropin.sh [BUILD_DIR] [MATRIX_DIR]
#   BUILD_DIR (default build), MATRIX_DIR (default $SPGEMM_MATRIX_DIR, else
#   .devstage/matrices, else shared/matrices beside or above the tree) with
#   *.mtx.gz.
# Writes to $OUT (default /tmp/out), 8 files: dropin_summary.txt,
# dropin_build.txt, dropin_tests.txt (steps 1 and 5), dropin_sequences.txt,
# dropin_sequences_log.txt, dropin_clients.txt, dropin_bench.txt, dropin_bench.csv.
# Environment: DROPIN_BENCH_REPEAT (10), DROPIN_SKIP (steps to skip, e.g.
# "3 4"), DROPIN_GENS (generated inputs of step 4, tests/dropin/dropin_mtx.py's
# gen: names), and gpu_sequences.sh's DROPIN_TYPES, DROPIN_INDICES, DROPIN_BIG.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
mkdir -p "${1:-build}"; build=$(cd "${1:-build}" && pwd)
matrices=${2:-${SPGEMM_MATRIX_DIR:-}}
for candidate in "$matrices" "$root/.devstage/matrices" "$root/shared/matrices" \
    "$root/../shared/matrices" /work/shared/matrices; do
  if [ -n "$candidate" ] && ls "$candidate"/*.mtx.gz > /dev/null 2>&1; then matrices=$candidate; break; fi
done
lib=$build/dropin/libspgemm_cusparse.so
bin=$build/tests/dropin
export PATH="$PATH:/usr/local/cuda/bin"
export LD_LIBRARY_PATH="$build:$build/dropin:$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export DROPIN_MTX_CACHE=$work/mtx
skip=" ${DROPIN_SKIP:-} "
summary=$OUT/dropin_summary.txt
verdict() { echo "$1: $([ "$2" -eq 0 ] && echo passed || echo "FAILED (rc $2)")" >> "$summary"; }
{
  date -u
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
  echo "build: $build"; echo "matrices: $matrices"
  git -C "$root" log -1 --format='commit %h %s' 2>/dev/null
  python3 -c 'import cupy; print("cupy", cupy.__version__, "CUDA", cupy.cuda.runtime.runtimeGetVersion())' 2>&1 | tail -1
  python3 -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)' 2>&1 | tail -1
} > "$summary"
if [ ! -f "$lib" ] || [ "${DROPIN_BUILD:-0}" = 1 ]; then
  # configured once (a configured tree is only built: changing its compilers
  # would reset its cache)
  fortran=$(command -v gfortran || command -v gfortran-13 || true)
  ( if [ ! -f "$build/CMakeCache.txt" ]; then
      cmake --preset default -B "$build" -DCMAKE_PREFIX_PATH="$root/.devstage/prefix/usr" \
        ${fortran:+-DCMAKE_Fortran_COMPILER="$fortran"} || exit 1
    fi
    cmake --build "$build" -j "$(nproc)" --target spgemm_cusparse cusparse_stub \
      test_dropin_units test_dropin_interpose test_dropin_real_probe dropin_sequence
  ) > "$OUT/dropin_build.txt" 2>&1
  verdict "0 build" $?
fi
[ -f "$lib" ] || { echo "no $lib: the build failed (dropin_build.txt)" | tee -a "$summary"; exit 1; }

if [[ $skip != *" 1 "* ]]; then
  (
    echo "== test_dropin_units"; "$bin/test_dropin_units"; r1=$?
    run_stub() {  # name tags env...
      local name=$1 tags=$2; shift 2
      echo "== $name"; rm -f "$work/$name.log"
      env "$@" SPGEMM_CUSPARSE_LOG="$work/$name.log" "$bin/test_dropin_interpose" "$tags"
    }
    run_stub host "[host]" SPGEMM_CUSPARSE_TEST_HOST=1; r2=$?
    run_stub disabled "[disabled]" SPGEMM_CUSPARSE_DISABLE=1 \
      "DROPIN_EXPECT_LOG=off, every call forwarded: SPGEMM_CUSPARSE_DISABLE is set"; r3=$?
    run_stub twin "[disabled]" STUB_CUSPARSE_LAYOUT=twin \
      "DROPIN_EXPECT_LOG=nnz probe failed: more than one field holds nnz"; r4=$?
    echo "== test_dropin_real_probe (the libcusparse.so.12 found by the loader)"
    "$bin/test_dropin_real_probe"; r5=$?
    echo "== documented sequences, generated matrices"
    "$root/tests/dropin/gpu_sequences.sh" "$bin/dropin_sequence" "$lib" "$work/gen" gen:2000 gen:30000; r6=$?
    echo "rc: units $r1 host $r2 disabled $r3 twin $r4 real_probe $r5 sequences $r6"
    exit $((r1 || r2 || r3 || r4 || (r5 != 0 && r5 != 77) || r6))
  ) > "$OUT/dropin_tests.txt" 2>&1
  verdict "1 drop-in tests" $?
  grep -E "^(probe|real cuSPARSE|test cases|All tests|rc:)" "$OUT/dropin_tests.txt" >> "$summary"
fi

if [[ $skip != *" 2 "* ]]; then
  "$root/tests/dropin/gpu_sequences.sh" "$bin/dropin_sequence" "$lib" "$work/seq" \
    "$matrices"/*.mtx.gz > "$OUT/dropin_sequences.txt" 2>&1
  verdict "2 documented sequences on the real matrices" $?
  head -c 15000000 "$work/seq/dropin_sequences_log.txt" > "$OUT/dropin_sequences_log.txt"
  grep -c ": ok |" "$OUT/dropin_sequences.txt" | sed 's/^/   combinations ok: /' >> "$summary"
  grep -E "FAILED|sequences failed" "$OUT/dropin_sequences.txt" | head -20 >> "$summary"
  grep -m3 "C descriptor words changed" "$work/seq/dropin_sequences_log.txt" >> "$summary"
fi

small=$(ls -S -r "$matrices"/*.mtx.gz | grep -v -e landmark -e G3_circuit)
if [[ $skip != *" 3 "* ]]; then
  python3 "$root/tests/dropin/dropin_clients.py" run --lib "$lib" --work "$work/clients" \
    $small > "$OUT/dropin_clients.txt" 2>&1
  verdict "3 CuPy and PyTorch, plain vs drop-in" $?
  grep -E "client results differing|FAILED" "$OUT/dropin_clients.txt" >> "$summary"
  sed -n '/^drop-in log/,$p' "$OUT/dropin_clients.txt" | head -30 >> "$summary"
fi

if [[ $skip != *" 4 "* ]]; then
  python3 "$root/bench/dropin_bench.py" --lib "$lib" --csv "$OUT/dropin_bench.csv" \
    --repeat "${DROPIN_BENCH_REPEAT:-10}" "$matrices"/*.mtx.gz \
    ${DROPIN_GENS:-gen:stencil27:48 gen:banded:500000:16 gen:uniform:200000:8 gen:rmat:16:16} \
    > "$OUT/dropin_bench.txt" 2>&1
  verdict "4 bench (cuSPARSE vs drop-in, float64)" $?
  grep "geometric-mean" "$OUT/dropin_bench.txt" >> "$summary"
fi
if [[ $skip != *" 5 "* ]]; then
  subject=$(ls "$matrices"/*.mtx.gz | grep -m1 bcsstk13 || ls "$matrices"/*.mtx.gz | head -1)
  (
    failed=0
    for mode in plain reuse; do
      echo "== compute-sanitizer memcheck, $mode sequence under LD_PRELOAD, $(basename "$subject")"
      compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 --target-processes all \
        env LD_PRELOAD="$lib" "$bin/dropin_sequence" "$mode" "$subject" sdcz 32,64 "$work/san-$mode" \
        || failed=1
    done
    exit $failed
  ) >> "$OUT/dropin_tests.txt" 2>&1
  verdict "5 compute-sanitizer memcheck on the drop-in" $?
  grep "ERROR SUMMARY" "$OUT/dropin_tests.txt" >> "$summary"
fi
cat "$summary"
! grep -q FAILED "$summary"
