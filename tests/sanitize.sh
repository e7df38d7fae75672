#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# compute-sanitizer over the GPU tests of a build directory:
#   memcheck   out-of-bounds and misaligned accesses, CUDA API errors, device
#              leaks (--leak-check full) and use-before-alloc / use-after-free
#              of the stream-ordered workspace pool (--track-stream-ordered-races all)
#   racecheck  shared-memory hazards (hash tables, dense windows, scans)
#   synccheck  barriers in divergent code, invalid warp synchronization
#   initcheck  reads of device memory never written (workspace, C)
# Every run has --error-exitcode, and also fails on a test failure, a missing
# summary line or a time-out. Under the sanitizer kernels run 10-100x slower,
# so the runs are reduced:
#   test_gpu_primitives   all of it: every block and warp primitive on its own
#   test_gpu_spgemm       all of it: every hash bin, both dense-window kernels
#                         (racecheck, the slowest, without the [long] test:
#                         the suite's hub_rows still reaches the dense windows)
#   test_gpu_random       the first 100-300 random cases (one per family
#                         first), at most 60-90 s each
#   test_gpu_concurrency  4 threads x 1-2 passes (memcheck, initcheck: the
#                         pool and streams across handles; racecheck and
#                         synccheck look inside kernels, which the other runs cover)
#   test_gpu_reliability  input checks, unsorted input, exhausted memory
#                         (memcheck, initcheck)
#   test_gpu_determinism  the warps' turns of the ordered adds (synccheck),
#                         without the [long] dense-window cases; under
#                         racecheck only its unsorted rows with repeated
#                         columns: its other cases run test_gpu_kernel_choices's
#                         kernels (there is one order of adds, whatever
#                         spgemmSetDeterministic holds) on rows that keep
#                         racecheck over 480 s a case (docs/testing.md)
#   test_gpu_kernel_choices  every kernel of the choice table forced, on
#                         small products, a case per index layout (racecheck
#                         and synccheck: the most kernels for the least work),
#                         the products thinned (SPGEMM_TEST_CHOICE_THIN: of
#                         some, every 16th row of A, which runs the same
#                         kernels), half a product's runs a run of the tool
#                         (choice_slices below): with all rows, 8 processes
#                         of a quarter of the products each run over 500 s
#                         under racecheck (docs/testing.md)
# Left out: test_gpu_real_matrices and test_gpu_limits (billions of products:
# hours under the sanitizer).
#
# Racecheck runs a binary test case by test case (SANITIZE_EACH_CASE), so
# that one slow case does not hide the verdict on the others: each case is
# its own process with its own time limit, SANITIZE_JOBS at a time, and the
# run's line names the cases that failed or ran out of time.
#
# Usage: tests/sanitize.sh BUILD_DIR [LOG_DIR]     (LOG_DIR: BUILD_DIR/sanitize)
# Environment: COMPUTE_SANITIZER (the binary), SANITIZE_TIMEOUT (seconds per
# run, or per case, default 900), SANITIZE_TOOLS (e.g. "memcheck initcheck";
# default all four), SANITIZE_BINARIES (e.g. "test_gpu_determinism"; default
# every binary below), SANITIZE_NAMES (e.g. "slice2 slice3": of the runs
# that have a name, only these), SANITIZE_EACH_CASE (the tools that run
# case by case, default "racecheck"; "" for none), SANITIZE_JOBS (cases at
# a time, default 4),
# SANITIZE_FILTER (a Catch2 test spec in place of every run's own filter, e.g.
# to finish the cases that a cut-off run left: "[long]" or a case's name).
# Exit: 0 all clean; 1 anything failed; 2 usage; 77 no GPU or no
# compute-sanitizer, or a sanitizer that refuses the device ("SKIPPED: ...").
set -uo pipefail
. "$(dirname "$0")/support/case_filter.sh"

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 BUILD_DIR [LOG_DIR]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
bin_dir="$build/tests/gpu"
log_dir=${2:-$build/sanitize}
timeout_s=${SANITIZE_TIMEOUT:-900}
tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}

# ---- what runs: tool | binary | Catch2 test filter | environment | name -----
# (name: what tells a run's logs from another's of the same tool and binary)
# test_gpu_kernel_choices's runs under a tool: its products thinned, their
# runs in choice_slices slices (SPGEMM_TEST_CHOICE_SLICE: 13 products of 8
# runs, so half a product each), a run named sliceK each.
choice_slices=26
add_choice_slices() {
  local k
  for ((k = 0; k < choice_slices; ++k)); do
    runs+=("$1|test_gpu_kernel_choices||SPGEMM_TEST_CHOICE_THIN=1 SPGEMM_TEST_CHOICE_SLICE=$k/$choice_slices|slice$k")
  done
}
runs=(
  "memcheck|test_gpu_primitives||"
  "memcheck|test_gpu_spgemm||"
  "memcheck|test_gpu_random||SPGEMM_RANDOM_CASES=300 SPGEMM_RANDOM_SECONDS=90"
  "memcheck|test_gpu_concurrency||SPGEMM_CONCURRENCY_THREADS=4 SPGEMM_CONCURRENCY_PASSES=2"
  "memcheck|test_gpu_reliability||"
  "racecheck|test_gpu_primitives||"
  "racecheck|test_gpu_spgemm|~[long]|"
  "racecheck|test_gpu_random||SPGEMM_RANDOM_CASES=100 SPGEMM_RANDOM_SECONDS=60"
  "racecheck|test_gpu_determinism|*repeated columns*|"
)
add_choice_slices racecheck
runs+=(
  "synccheck|test_gpu_primitives||"
  "synccheck|test_gpu_spgemm||"
  "synccheck|test_gpu_random||SPGEMM_RANDOM_CASES=100 SPGEMM_RANDOM_SECONDS=60"
  "synccheck|test_gpu_determinism|~[long]|"
)
add_choice_slices synccheck
runs+=(
  "initcheck|test_gpu_primitives||"
  "initcheck|test_gpu_spgemm||"
  "initcheck|test_gpu_random||SPGEMM_RANDOM_CASES=100 SPGEMM_RANDOM_SECONDS=60"
  "initcheck|test_gpu_concurrency||SPGEMM_CONCURRENCY_THREADS=4 SPGEMM_CONCURRENCY_PASSES=1"
  "initcheck|test_gpu_reliability||"
)

tool_flags() {
  case $1 in
    memcheck) echo "--leak-check full --track-stream-ordered-races all" ;;
    racecheck) echo "--racecheck-report all" ;;
    *) echo "" ;;
  esac
}

# ---- compute-sanitizer and a GPU --------------------------------------------
sanitizer=${COMPUTE_SANITIZER:-}
if [ -z "$sanitizer" ]; then
  for candidate in "$(command -v compute-sanitizer 2>/dev/null)" \
                   "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
                   /usr/local/cuda/bin/compute-sanitizer; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then sanitizer=$candidate; break; fi
  done
fi
if [ -z "$sanitizer" ] || [ ! -x "$sanitizer" ]; then
  echo "SKIPPED: compute-sanitizer not found (set COMPUTE_SANITIZER, or put it on PATH)"
  exit 77
fi
if [ ! -x "$bin_dir/test_gpu_spgemm" ]; then
  echo "error: $bin_dir/test_gpu_spgemm not found: build the tests first" >&2
  exit 2
fi
# The tests' own device check: exit code 77 and "SKIPPED: ..." without a GPU.
probe=$("$bin_dir/test_gpu_spgemm" --list-test-names-only 2>&1)
if [ $? -eq 77 ]; then
  echo "$probe" | grep SKIPPED || echo "SKIPPED: no CUDA device"
  exit 77
fi

mkdir -p "$log_dir"
echo "compute-sanitizer: $sanitizer ($("$sanitizer" --version | grep -m1 Version))"
echo "logs: $log_dir"

# ---- the runs -----------------------------------------------------------------
# Prints the verdict of one finished run from its exit code and log.
verdict() {
  local rc=$1 log=$2 tool=$3 summary count
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "FAIL timeout"; return; fi
  # Some GPU runtimes (gVisor) refuse the sanitizer whatever the program.
  if grep -q "Device not supported" "$log"; then echo "SKIP sanitizer: device not supported"; return; fi
  if [ "$tool" = racecheck ]; then
    summary=$(grep -E "RACECHECK SUMMARY" "$log" | tail -1)
    count=$(echo "$summary" | sed -nE 's/.*SUMMARY: ([0-9]+) hazard.*/\1/p')
  else
    summary=$(grep -E "ERROR SUMMARY" "$log" | tail -1)
    count=$(echo "$summary" | sed -nE 's/.*SUMMARY: ([0-9]+) error.*/\1/p')
  fi
  local test_failed=""
  grep -qE "Target application returned an error|test cases:.*failed" "$log" && test_failed=" +test failed"
  if [ -z "$count" ]; then echo "FAIL no summary (rc $rc)$test_failed"; return; fi
  # a filter that selects nothing runs nothing: not a pass
  grep -q "All tests passed" "$log" || test_failed="$test_failed +no test passed"
  if [ "$rc" -eq 0 ] && [ "$count" -eq 0 ] && [ -z "$test_failed" ]; then echo "PASS"; return; fi
  echo "FAIL $count reports (rc $rc)$test_failed"
}

# One sanitized process: tool, binary, log, env string, then Catch2's arguments.
sanitize_one() {
  local tool=$1 binary=$2 log=$3 envs=$4
  shift 4
  local env_args flags
  read -r -a env_args <<<"$envs"
  read -r -a flags <<<"$(tool_flags "$tool")"
  env "${env_args[@]}" timeout --kill-after=30 "$timeout_s" "$sanitizer" --tool "$tool" \
    --error-exitcode 99 "${flags[@]}" "$bin_dir/$binary" "$@" >"$log" 2>&1
  verdict $? "$log" "$tool"
}

# A binary's cases (those the filter selects) one process each, SANITIZE_JOBS
# at a time; the cases' logs in LOG_DIR/RUN/ (RUN: TOOL-BINARY, with the
# run's name if it has one). Prints one verdict for all: PASS, or FAIL with
# the cases that did not pass.
sanitize_each_case() {
  local tool=$1 binary=$2 filter=$3 envs=$4 dir="$log_dir/$5"
  mkdir -p "$dir"
  "$bin_dir/$binary" --list-test-names-only ${filter:+"$filter"} | sed '/^$/d' >"$dir/cases.txt"
  [ -s "$dir/cases.txt" ] || { echo "FAIL no cases"; return; }
  export -f sanitize_one verdict tool_flags case_filter
  export sanitizer timeout_s bin_dir
  # each case by its escaped name (support/case_filter.sh)
  awk '{ print NR "\t" $0 }' "$dir/cases.txt" |
    xargs -d '\n' -P "${SANITIZE_JOBS:-4}" -I{} bash -c '
      IFS=$'"'"'\t'"'"' read -r n name <<<"$1"; t0=$SECONDS
      r=$(sanitize_one "$2" "$3" "$4/$n.log" "$5" "$(case_filter "$name")")
      printf "%s\t%s\t%ss\t%s\n" "$n" "$r" "$((SECONDS - t0))" "$name"' _ {} \
      "$tool" "$binary" "$dir" "$envs" >"$dir/finished.txt"
  # finished.txt grows as cases end, so a run cut short still names them
  sort -n "$dir/finished.txt" >"$dir/verdicts.txt"
  local cases reported bad slowest
  cases=$(wc -l <"$dir/cases.txt")
  reported=$(wc -l <"$dir/verdicts.txt")
  bad=$(awk -F'\t' '$2 != "PASS" { printf "\"%s\" (%s, %s); ", $4, $2, $3 }' "$dir/verdicts.txt")
  slowest=$(sort -t$'\t' -k3 -n "$dir/verdicts.txt" | tail -1 | cut -f3)
  if [ "$reported" -ne "$cases" ]; then
    echo "FAIL $reported of $cases cases reported"
  elif [ -n "$bad" ]; then
    echo "FAIL $bad(of $cases cases; $dir/verdicts.txt)"
  else
    echo "PASS ($cases cases, slowest $slowest)"
  fi
}

results=()
failed=0
skipped=0
for run in "${runs[@]}"; do
  IFS='|' read -r tool binary filter envs name <<<"$run"
  filter=${SANITIZE_FILTER:-$filter}
  case " $tools " in *" $tool "*) ;; *) continue ;; esac
  case " ${SANITIZE_BINARIES:-$binary} " in *" $binary "*) ;; *) continue ;; esac
  [ -z "$name" ] || case " ${SANITIZE_NAMES:-$name} " in *" $name "*) ;; *) continue ;; esac
  run_name="$tool-$binary${name:+-$name}"
  log="$log_dir/$run_name.log"
  started=$SECONDS
  if [ ! -x "$bin_dir/$binary" ]; then
    result="FAIL binary missing"
  elif case " ${SANITIZE_EACH_CASE-racecheck} " in *" $tool "*) true ;; *) false ;; esac; then
    result=$(sanitize_each_case "$tool" "$binary" "$filter" "$envs" "$run_name")
  else
    result=$(sanitize_one "$tool" "$binary" "$log" "$envs" ${filter:+"$filter"})
  fi
  elapsed=$((SECONDS - started))
  case $result in PASS*) ;; SKIP*) skipped=1 ;; *) failed=1 ;; esac
  line=$(printf "%-10s %-22s %-40s %5ss" "$tool" "$binary${name:+ $name}" "$result" "$elapsed")
  echo "$line"
  results+=("$line")
done

if [ ${#results[@]} -eq 0 ]; then
  echo "error: SANITIZE_TOOLS='$tools' selects no run" >&2
  exit 2
fi
echo
echo "=== compute-sanitizer summary (logs in $log_dir) ==="
printf "%-10s %-22s %-40s %6s\n" tool binary result time
printf "%s\n" "${results[@]}"
if [ $failed -ne 0 ]; then
  echo "FAILED: see the logs above"
  exit 1
fi
if [ $skipped -ne 0 ]; then
  echo "SKIPPED: compute-sanitizer does not support this device or runtime"
  exit 77
fi
echo "all clean"
