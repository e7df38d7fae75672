#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks tests/sanitize.sh's own logic without a GPU: its runs, their
# verdicts and the pool, against a stand-in compute-sanitizer and stand-in
# test binaries. Each stand-in binary lists three cases (one name with a
# comma and template arguments, as the real ones have); test_gpu_primitives
# lists a fourth that fails, test_gpu_random one that outlasts the time
# limit. The stand-in sanitizer runs the program and prints the summary
# line of its tool. Checked: a whole run's and a case-by-case run's
# verdicts, a failed case, a time-out, a missing binary, SANITIZE_NAMES,
# SANITIZE_WALL (a process cut to the time left, none started after it),
# the environment and escaped filter that reach each process, the exit
# codes (0 clean, 1 failed, 77 no GPU).
# Usage: check_sanitize_script.sh
set -uo pipefail
script=$(cd "$(dirname "$0")/.." && pwd)/sanitize.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build/tests/gpu"

cat >"$work/test_stand_in" <<'EOF'
#!/usr/bin/env bash
me=$(basename "$0")
[ -n "${STAND_IN_NO_GPU:-}" ] && { echo "SKIPPED: no usable CUDA device"; exit 77; }
cases=("$me case - Layout<float, int32_t, int32_t>" "$me long case [x]" "$me repeated columns")
[ "$me" = test_gpu_primitives ] && cases+=("$me failing case")
[ "$me" = test_gpu_random ] && cases+=("$me slow case")
if [ "${1:-}" = --list-test-names-only ]; then
  for c in "${cases[@]}"; do
    case "${2:-}" in
      "") echo "$c" ;;
      "~[long]") [[ $c == *long* ]] || echo "$c" ;;
      "*repeated columns*") [[ $c == *"repeated columns"* ]] && echo "$c" ;;
      *) echo "$c" ;;
    esac
  done
  exit 0
fi
echo "filter: $* | slice: ${SPGEMM_TEST_CHOICE_SLICE:-none} thin: ${SPGEMM_TEST_CHOICE_THIN:-none}"
case "$*" in *slow*) sleep 30 ;; esac
case "$*" in *failing*) echo "test cases: 1 | 1 failed"; exit 1 ;; esac
echo "All tests passed (1 assertion in 1 test case)"
EOF
for b in test_gpu_primitives test_gpu_spgemm test_gpu_random test_gpu_concurrency \
         test_gpu_reliability test_gpu_determinism test_gpu_kernel_choices; do
  cp "$work/test_stand_in" "$work/build/tests/gpu/$b"
  chmod +x "$work/build/tests/gpu/$b"
done
cat >"$work/sanitizer" <<'EOF'
#!/usr/bin/env bash
[ "$1" = --version ] && { echo "Version stand-in"; exit 0; }
tool=$2
shift 2
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
  case $1 in --leak-check | --track-stream-ordered-races | --racecheck-report | --error-exitcode) shift 2 ;; *) shift ;; esac
done
"$@"
rc=$?
if [ "$tool" = racecheck ]; then
  echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
else
  echo "========= ERROR SUMMARY: 0 errors"
fi
[ $rc -eq 0 ] || echo "========= Target application returned an error"
exit $rc
EOF
chmod +x "$work/sanitizer"
export COMPUTE_SANITIZER=$work/sanitizer

failed=0
# expect DESCRIPTION PATTERN FILE: the file has a line matching the regex
expect() {
  grep -qE "$2" "$3" || { echo "FAIL: $1 (no line matching '$2' in $3)"; failed=1; }
}
# run NAME EXPECTED_EXIT [VAR=VALUE...]: tests/sanitize.sh with those
# variables, its output in $work/NAME.txt and its logs in $work/NAME/
run() {
  local name=$1 want=$2
  shift 2
  env "$@" bash "$script" "$work/build" "$work/$name" >"$work/$name.txt" 2>&1
  local rc=$?
  [ "$rc" -eq "$want" ] || { echo "FAIL: $name exited $rc, not $want"; cat "$work/$name.txt"; failed=1; }
}

run all 1 SANITIZE_TIMEOUT=10 SANITIZE_JOBS=8
expect "a whole run passes" "^memcheck +test_gpu_spgemm +PASS [0-9]+s$" "$work/all.txt"
expect "a failed case is named" \
  '^racecheck +test_gpu_primitives +FAIL "test_gpu_primitives failing case" \(FAIL 0 reports \(rc 1\) \+test failed' \
  "$work/all.txt"
expect "a time-out is named" '^racecheck +test_gpu_random +FAIL "test_gpu_random slow case" \(FAIL timeout' \
  "$work/all.txt"
expect "~[long] leaves a case out" "^racecheck +test_gpu_spgemm +PASS \(2 cases" "$work/all.txt"
expect "a filter selects a case" "^racecheck +test_gpu_determinism +PASS \(1 cases" "$work/all.txt"
expect "the last slice runs" "^racecheck +test_gpu_kernel_choices slice25 PASS \(3 cases" "$work/all.txt"
expect "synccheck runs a slice whole" "^synccheck +test_gpu_kernel_choices slice25 PASS [0-9]+s$" \
  "$work/all.txt"
expect "the slice and thinning reach the process" "slice: 7/26 thin: 1" \
  "$work/all/racecheck-test_gpu_kernel_choices-slice7/1.log"
expect "a case runs by its escaped name" \
  'filter: test\\_gpu\\_kernel\\_choices case \\- Layout\\<float\\, int32\\_t\\, int32\\_t\\>' \
  "$work/all/racecheck-test_gpu_kernel_choices-slice7/1.log"
expect "a verdict per case" "$(printf '^3\tPASS\t[0-9]+s\ttest_gpu_random repeated columns$')" \
  "$work/all/racecheck-test_gpu_random/verdicts.txt"
expect "the summary says what failed" "^FAILED" "$work/all.txt"

run clean 0 SANITIZE_TOOLS="initcheck racecheck" SANITIZE_BINARIES="test_gpu_spgemm test_gpu_kernel_choices" \
  SANITIZE_NAMES="slice3" SANITIZE_JOBS=4
expect "clean runs say so" "^all clean$" "$work/clean.txt"
grep -q "slice[0-24-9]" "$work/clean.txt" && { echo "FAIL: SANITIZE_NAMES let other slices run"; failed=1; }

run wall 1 SANITIZE_WALL=0 SANITIZE_TOOLS=memcheck SANITIZE_BINARIES=test_gpu_spgemm
expect "nothing starts after the wall" "^memcheck +test_gpu_spgemm +FAIL not started \(SANITIZE_WALL\)" \
  "$work/wall.txt"
run short 1 SANITIZE_WALL=3 SANITIZE_TIMEOUT=60 SANITIZE_TOOLS=racecheck SANITIZE_BINARIES=test_gpu_random
# (the slow case sleeps 30 s: only the wall cuts it within its 60)
expect "a process gets the time left" '"test_gpu_random slow case" \(FAIL timeout' "$work/short.txt"

rm "$work/build/tests/gpu/test_gpu_reliability"
run missing 1 SANITIZE_TOOLS=initcheck SANITIZE_BINARIES=test_gpu_reliability
expect "a missing binary fails" "^initcheck +test_gpu_reliability +FAIL binary missing" "$work/missing.txt"

run no_gpu 77 STAND_IN_NO_GPU=1
expect "no GPU: skipped" "^SKIPPED" "$work/no_gpu.txt"

[ $failed -eq 0 ] && echo "tests/sanitize.sh: every check passed"
exit $failed
