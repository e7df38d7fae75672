// SPDX-License-Identifier: Apache-2.0
// Products split among several devices (spgemmSetDevices): an Engine over
// per-part engines. analyze counts the products of every row on the
// operands' device and cuts the rows of op(A) into parts by the handle's
// shares (cuda/partition/); each part computes C's rows of its row block of
// A (and D) times B with the GPU engine of its own context (device, stream,
// pool), and its rows of C are assembled into C on the operands' device.
//   - A part on the operands' device reads A, B and D in place (its row
//     offsets are a shifted copy) and writes its rows of C straight into C's
//     arrays.
//   - A part on another device gets copies: its block of A's (and D's) rows
//     and the rows of B those name, structures at analyze, values at every
//     numeric phase; its rows of C come back peer to peer (through the host
//     where the devices cannot reach each other).
//   - The parts' phases run at once: one host thread per part where a phase
//     synchronizes (analyze, symbolic), stream order and events otherwise.
//   - C distributed (spgemmSetOutputDistributed): every part keeps its rows
//     of C in arrays of its own, reported as row blocks; nothing assembled.
//   - The host as a part (SPGEMM_HOST_DEVICE, multi/host_part.hpp): pinned
//     copies and the host backend, its numeric phase on the caller's thread
//     while the GPU parts run; its share from multi/cost_model.hpp.
//   - Shares not forced: the GPUs' follow what each entry of the device list
//     measured in the handle's last split numeric phase (equal before).
// Products with fewer products than the handle's minimum (multi/policy.hpp's
// kPartitionMinProducts by default) run whole on the operands' device.
#pragma once

#include "core/context.hpp"
#include "core/settings.hpp"
#include "multi/split_context.hpp"
#include "plan/engine.hpp"

#include <memory>

namespace spgemm {

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_partitioned_engine(Context& ctx, const Settings& settings,
                                        multi::SplitContext& split);

}  // namespace spgemm
