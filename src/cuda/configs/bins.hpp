// SPDX-License-Identifier: Apache-2.0
// The GPU engine's tuning data: the bins and every threshold, in a file per
// part: bin_table.hpp (the bins both phases share), numeric_policy.hpp,
// symbolic_policy.hpp (with the analysis's), small_policy.hpp (small
// products, C of few rows). The choices made from them live in one place,
// dispatch/choice.hpp.
//
// A row of C is put in a bin by its size: in the symbolic phase the number of
// terms (products, plus D's entries: an upper bound of its nnz), in the
// numeric phase its exact nnz. In the numeric phase, rows of at most
// kSortBinTerms terms go to a sort bin (their terms fit a warp's registers;
// the first may give each row a thread, BinPolicy::thread_row_terms, as does
// the symbolic phase's thread bin for C of many rows).
// Other rows that fit a shared-memory hash table go to the first hash bin
// whose max_size holds them; longer rows go to the dense-window bin.
// Everything that depends on the device (which bins fit its shared memory,
// how many blocks are resident, the dense window width) is derived at run
// time from the queried DeviceLimits, never compiled in.
//
// The tuning values are static constexpr members of per-phase policy structs
// (BinPolicy, NumericPolicy, SymbolicPolicy, AnalysisPolicy, SmallPolicy),
// usable in device code, template arguments and __launch_bounds__. Each has
// a line of reason; docs/tuning.md has a section per struct with every
// value's full reason, the spgemm-bench command that chose it and the
// columns compared.
#pragma once

#include "cuda/configs/bin_table.hpp"
#include "cuda/configs/numeric_policy.hpp"
#include "cuda/configs/small_policy.hpp"
#include "cuda/configs/symbolic_policy.hpp"
