// SPDX-License-Identifier: Apache-2.0
// Products whose C does not fit the device: C in host memory, A and B (and
// D) on the device (spgemmSetOutputChunkBytes).
//   analyze:  the GPU engine's, on the whole product;
//   symbolic: the GPU engine's into row offsets on the device, copied into
//             C's host row offsets (the symbolic phase holds no nnz-sized
//             arrays);
//   numeric:  C's rows cut into chunks from its row offsets (now on the
//             host) so that a chunk's column indices and values take at most
//             half the chunk bytes; each chunk is a product of its rows of A
//             (and D) times B (src/multi/row_blocks.hpp), analyzed, counted
//             and computed into one of two device buffers on the handle's
//             stream, then copied to C's host arrays on a copy stream while
//             the next chunk runs. Up to multi/policy.hpp's
//             kKeptOutputChunks chunks keep their analysis and symbolic state
//             (O(rows of the chunk) each) until the next analysis, symbolic
//             phase or change of the chunk bytes, so that numeric phases
//             again only compute and copy; with more chunks each numeric
//             phase redoes them chunk by chunk. Device memory stays within
//             the chunk bytes plus O(rows).
#pragma once

#include "core/context.hpp"
#include "multi/split_context.hpp"
#include "plan/engine.hpp"

#include <memory>

namespace spgemm {

template <class Value, class Offset, class Col>
std::unique_ptr<Engine> make_chunked_engine(Context& ctx, multi::SplitContext& split);

}  // namespace spgemm
