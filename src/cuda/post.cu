// SPDX-License-Identifier: Apache-2.0
// cuda/post.cuh's readback by a post: a one-block kernel behind the
// stream's work posts the data, the host polls for it.
#include "core/error.hpp"
#include "cuda/configs/launch.cuh"
#include "cuda/post.cuh"

namespace spgemm::cuda {

namespace {

constexpr int kPostThreads = 128;

__global__ void __launch_bounds__(kPostThreads) post_kernel(DevicePost post) {
  post_to_host(post);
}

}  // namespace

void read_back_posted(Context& ctx, void* out, const void* from, size_t bytes) {
  const Context::PostBox box = ctx.post_box(bytes);
  launch(post_kernel, 1, kPostThreads, 0, ctx.stream(), post_into(box, from));
  ctx.wait_for(box, out);
}

}  // namespace spgemm::cuda
