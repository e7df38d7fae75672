// SPDX-License-Identifier: Apache-2.0
// main() for test programs that never skip as a whole.
#include "catch_main_skip.hpp"

int main(int argc, char** argv) { return spgemm_test::run_catch_tests(argc, argv, nullptr); }
