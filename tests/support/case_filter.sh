# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/sanitize.sh and tests/host/check_case_filters.sh.
#
# case_filter NAME: a Catch2 (v2) test spec that selects exactly the case
# NAME. Catch2 2.13 splits a spec at commas even inside quotes, and reads
# [ ] * ~ " and \ as its own syntax, so a quoted name with a comma (a
# TEMPLATE_TEST_CASE's "- Layout<float, int32_t, int32_t>") selects nothing
# and the binary reports "No tests ran" with exit status 0. Every character
# other than a letter, a digit or a space is escaped with a backslash, which
# Catch2 reads as that character itself.
case_filter() {
  printf '%s' "$1" | sed 's/[^A-Za-z0-9 ]/\\&/g'
}
