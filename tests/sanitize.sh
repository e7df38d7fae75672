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
#                         (racecheck, the slowest, without the [long] tests:
#                         the suite's hub_rows still reaches the dense windows,
#                         and the rows of blocks recomputed after edits of C's
#                         columns run in the case of long rows)
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
# its own process with its own time limit, and the run's line names the
# cases that failed or ran out of time. The processes of all runs (a run
# whole is one) share one pool of SANITIZE_JOBS, taken in the order of the
# runs, so that a run's slowest case does not hold the next runs back.
#
# Usage: tests/sanitize.sh BUILD_DIR [LOG_DIR]     (LOG_DIR: BUILD_DIR/sanitize)
# Environment: COMPUTE_SANITIZER (the binary), SANITIZE_TIMEOUT (seconds per
# run, or per case, default 900), SANITIZE_TOOLS (e.g. "memcheck initcheck";
# default all four), SANITIZE_BINARIES (e.g. "test_gpu_determinism"; default
# every binary below), SANITIZE_NAMES (e.g. "slice2 slice3": of the runs
# that have a name, only these), SANITIZE_EACH_CASE (the tools that run
# case by case, default "racecheck"; "" for none), SANITIZE_JOBS (processes
# at a time, default 4),
# SANITIZE_FILTER (a Catch2 test spec in place of every run's own filter, e.g.
# to finish the cases that a cut-off run left: "[long]" or a case's name),
# SANITIZE_WALL (seconds for all runs together: a process gets at most
# what is left, none after; default no limit), SANITIZE_CHOICE_SLICES (the
# slices of test_gpu_kernel_choices's work, default 26).
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
# runs, so half a product each; SANITIZE_CHOICE_SLICES=104, a run each), a
# run named sliceK each.
choice_slices=${SANITIZE_CHOICE_SLICES:-26}
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

# One job of the pool, a line of jobs.txt: the run's log folder, the case's
# number in its cases.txt, tool, binary, environment and Catch2 filter,
# separated by the unit separator (0x1f: an empty field stays a field).
# Its log is FOLDER/N.log; its verdict is added to FOLDER/finished.txt when
# it ends, so a run cut short still names the cases that ended.
# A process is given at most the time left before the pool's deadline
# (SANITIZE_WALL), and none once it has passed.
run_job() {
  local dir n tool binary envs filter name t0=$SECONDS r
  IFS=$'\x1f' read -r dir n tool binary envs filter <<<"$1"
  name=$(sed -n "${n}p" "$dir/cases.txt")
  local timeout_s=$timeout_s left
  if [ -n "$deadline" ]; then
    left=$((deadline - $(date +%s)))
    [ "$left" -lt "$timeout_s" ] && timeout_s=$left
  fi
  if [ "$timeout_s" -le 0 ]; then
    r="FAIL not started (SANITIZE_WALL)"
  else
    r=$(sanitize_one "$tool" "$binary" "$dir/$n.log" "$envs" ${filter:+"$filter"})
  fi
  printf "%s\t%s\t%ss\t%s\n" "$n" "$r" "$((SECONDS - t0))" "$name" >>"$dir/finished.txt"
}

# A run's verdict from its folder, once its jobs have ended: PASS, or FAIL
# with the cases that did not pass; for a run whole, its process's verdict.
run_verdict() {
  local dir=$1 cases reported bad slowest
  [ -e "$dir/missing" ] && { echo "FAIL binary missing"; return; }
  [ -s "$dir/cases.txt" ] || { echo "FAIL no cases"; return; }
  sort -n "$dir/finished.txt" >"$dir/verdicts.txt" 2>/dev/null
  cases=$(wc -l <"$dir/cases.txt")
  reported=$(wc -l <"$dir/verdicts.txt")
  if [ "$reported" -ne "$cases" ]; then
    echo "FAIL $reported of $cases cases reported"
    return
  fi
  if [ -e "$dir/whole" ]; then
    cut -f2,3 "$dir/verdicts.txt" | tr '\t' ' '
    return
  fi
  if ! cut -f2 "$dir/verdicts.txt" | grep -qv '^SKIP'; then
    echo "SKIP sanitizer: device not supported"
    return
  fi
  bad=$(awk -F'\t' '$2 != "PASS" { printf "\"%s\" (%s, %s); ", $4, $2, $3 }' "$dir/verdicts.txt")
  slowest=$(sort -t$'\t' -k3 -n "$dir/verdicts.txt" | tail -1 | cut -f3)
  if [ -n "$bad" ]; then
    echo "FAIL $bad(of $cases cases; $dir/verdicts.txt)"
  else
    echo "PASS ($cases cases, slowest $slowest)"
  fi
}

# The selected runs, each a folder LOG_DIR/TOOL-BINARY[-NAME] with its
# cases.txt, and their jobs.
selected=()
jobs_file=$log_dir/jobs.txt
: >"$jobs_file"
for run in "${runs[@]}"; do
  IFS='|' read -r tool binary filter envs name <<<"$run"
  filter=${SANITIZE_FILTER:-$filter}
  case " $tools " in *" $tool "*) ;; *) continue ;; esac
  case " ${SANITIZE_BINARIES:-$binary} " in *" $binary "*) ;; *) continue ;; esac
  [ -z "$name" ] || case " ${SANITIZE_NAMES:-$name} " in *" $name "*) ;; *) continue ;; esac
  run_name="$tool-$binary${name:+-$name}"
  dir="$log_dir/$run_name"
  rm -rf "$dir"
  mkdir -p "$dir"
  : >"$dir/finished.txt"
  selected+=("$tool|$binary|$name|$dir")
  if [ ! -x "$bin_dir/$binary" ]; then
    touch "$dir/missing"
  elif case " ${SANITIZE_EACH_CASE-racecheck} " in *" $tool "*) true ;; *) false ;; esac; then
    "$bin_dir/$binary" --list-test-names-only ${filter:+"$filter"} | sed '/^$/d' >"$dir/cases.txt"
    # each case by its escaped name (support/case_filter.sh)
    n=0
    while IFS= read -r case_name; do
      n=$((n + 1))
      printf "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\n" "$dir" "$n" "$tool" "$binary" "$envs" \
        "$(case_filter "$case_name")" >>"$jobs_file"
    done <"$dir/cases.txt"
  else
    echo "(the run whole${filter:+: $filter})" >"$dir/cases.txt"
    touch "$dir/whole"
    printf "%s\x1f1\x1f%s\x1f%s\x1f%s\x1f%s\n" "$dir" "$tool" "$binary" "$envs" "$filter" >>"$jobs_file"
  fi
done
if [ ${#selected[@]} -eq 0 ]; then
  echo "error: SANITIZE_TOOLS='$tools' selects no run" >&2
  exit 2
fi

deadline=""
[ -z "${SANITIZE_WALL:-}" ] || deadline=$(($(date +%s) + SANITIZE_WALL))
export -f run_job sanitize_one verdict tool_flags
export sanitizer timeout_s bin_dir deadline
started=$SECONDS
xargs -d '\n' -P "${SANITIZE_JOBS:-4}" -I{} bash -c 'run_job "$1"' _ {} <"$jobs_file"

results=()
failed=0
skipped=0
for run in "${selected[@]}"; do
  IFS='|' read -r tool binary name dir <<<"$run"
  result=$(run_verdict "$dir")
  case $result in PASS*) ;; SKIP*) skipped=1 ;; *) failed=1 ;; esac
  results+=("$(printf "%-10s %-22s %s" "$tool" "$binary${name:+ $name}" "$result")")
done

echo
echo "=== compute-sanitizer summary (logs in $log_dir; $((SECONDS - started)) s) ==="
printf "%-10s %-22s %s\n" tool binary result
printf "%s\n" "${results[@]}"
if [ $failed -ne 0 ]; then
  echo "FAILED: see the logs in $log_dir"
  exit 1
fi
if [ $skipped -ne 0 ]; then
  echo "SKIPPED: compute-sanitizer does not support this device or runtime"
  exit 77
fi
echo "all clean"
