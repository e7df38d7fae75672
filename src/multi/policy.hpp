// SPDX-License-Identifier: Apache-2.0
// The tuning of products split among devices and of C in host memory
// (src/multi/): the defaults their choices start from, each with the
// measurement that chose it.
#pragma once

namespace spgemm::multi {

// Several devices (src/multi/): products of fewer products than this run
// whole on the handle's device instead of being split. A split costs a pass
// that counts every row's products with a readback, then per part a host
// thread, its own analysis and symbolic readback, and copies; at 2^24
// products (about 0.3-1 ms on one H100) that is a small share. Not tuned
// further: `spgemm-split-bench --devices 0,1 --min-products N` compares.
inline constexpr long long kPartitionMinProducts = 1LL << 24;

// The CPU+GPU hybrid's cost model (cost_model.hpp), until the handle
// has measured its own: products per second of one GPU part (H100, fp64:
// 2.8e10 on rmat:16:16, the slowest large family) and of one host thread
// (the host backend, fp64), bytes per second copied between device and
// pinned host memory (PCIe 5: 55e9 one way, less when both ways and small),
// and the host part's fixed cost per numeric phase (its synchronizations
// and copy launches). From `spgemm-split-bench --devices 0,host`.
inline constexpr double kHybridGpuProductsPerSecond = 3e10;
inline constexpr double kHybridHostProductsPerSecondPerThread = 5e7;
inline constexpr double kHybridCopyBytesPerSecond = 2e10;
inline constexpr double kHybridHostOverheadSeconds = 2e-4;
// ... and the least share it gives the host. On one H100 with 16 host
// threads the model put the host at 0.05-1.5% of the products and the host
// part ran 1-3x slower than it predicted (a prefix of rmat's rows holds
// its heaviest, least parallel rows): a gain that small is within the
// model's error (`spgemm-split-bench --devices 0,host --gen rmat:16:16`).
inline constexpr double kHybridMinHostShare = 0.05;

// Shares learned from measures (shares.hpp): two measures of a
// device-list entry fit a line (seconds against products) where their
// products differ by at least this share of the total; closer ones count as
// one cut measured again.
inline constexpr double kShareFitMinGap = 0.005;
// ... and the step of such a line from the newest cut is at most this many
// times the step of shares in proportion to the newest rates: measured
// times vary by a few percent from run to run, and a line through two cuts
// close together can be nearly flat (rmat:17:16 on two H200s: a fit without
// this bound gave one GPU 9% of the products and a spread of 7).
inline constexpr double kShareFitMaxStep = 2.0;

// C in host memory (chunked_engine.cpp): by default the chunks of
// C on the device (two at once) take at most this share of the device's
// memory (spgemmSetOutputChunkBytes sets another bound). Chunks of C copied
// to the host over PCIe are bound by the copy, not by their size: a few
// hundred MB already keep the copy engine busy.
inline constexpr double kOutputChunkShare = 1.0 / 8;

// C in host memory: up to this many chunks keep their analysis and symbolic
// state (O(rows of the chunk) each, and a few KB) from one numeric phase to
// the next, which then only computes and copies. More chunks (small chunk
// bytes) redo both per chunk at every numeric phase. Bounds the plan's
// workspace (workspace_bytes) by a constant number of chunks.
inline constexpr int kKeptOutputChunks = 64;

}  // namespace spgemm::multi
