#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks tests/support/case_filter.sh on Catch2 binaries that run without a
# GPU: every case they list, run alone by its filter, must run exactly one
# test case (and pass). tests/sanitize.sh runs GPU binaries case by case
# this way; a filter that selects nothing would run nothing and still exit 0.
# A case may pass without assertions where it does not apply to the machine
# (Catch2 v2 then prints "test cases: 1 | 1 passed", not "All tests passed";
# "device descriptors without a GPU" on a machine with one): the filter still
# selected exactly one case, which is what is checked. Such cases are counted.
# Usage: check_case_filters.sh BINARY...
set -uo pipefail
. "$(dirname "$0")/../support/case_filter.sh"
failed=0 checked=0 empty=0
for binary in "$@"; do
  while IFS= read -r name; do
    [ -n "$name" ] || continue
    verdict=$("$binary" "$(case_filter "$name")" 2>&1 | grep -E "^(All tests passed|test cases:|No tests ran)")
    checked=$((checked + 1))
    case $verdict in
      "All tests passed ("*" in 1 test case)") ;;
      "test cases: 1 | 1 passed") empty=$((empty + 1)) ;;
      *) echo "FAIL $(basename "$binary"): \"$name\" -> ${verdict:-no verdict}"; failed=1 ;;
    esac
  done < <("$binary" --list-test-names-only)
done
echo "$checked cases, each run alone by its filter ($empty of them passed without assertions)"
exit $failed
