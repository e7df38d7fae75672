#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One short call on a two-GPU device machine, from binaries built elsewhere
# (no build there): test_gpu_split_devices, then spgemm-split-bench on the
# large inputs of docs/scaling.md, each step under a time limit so that what
# ran comes back even when the lease is short. Logs and CSV go to $OUT.
# Usage (device tool, carry [".devstage"]):  bench/device_split.sh [BIN_DIR]
#   BIN_DIR (default .devstage/bin): test_gpu_split_devices, spgemm-split-bench
#   and libspgemm.so.0 side by side (bench/pack_binaries.sh makes it); libfmt
#   from .devstage/prefix (../shared/device/stage.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
bin=$(cd "${1:-.devstage/bin}" && pwd)
export LD_LIBRARY_PATH="$bin:$root/.devstage/prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"

timeout "${SPLIT_TEST_SECONDS:-60}" "$bin/test_gpu_split_devices" > "$OUT/split_devices.txt" 2>&1
test_rc=$?
tail -4 "$OUT/split_devices.txt"

inputs=(--gen banded:500000:16 --gen stencil27:64 --gen rmat:16:16)
[ -f .devstage/matrices/landmark.mtx.gz ] && inputs+=(.devstage/matrices/landmark.mtx.gz)
timeout "${SPLIT_BENCH_SECONDS:-100}" stdbuf -oL "$bin/spgemm-split-bench" --devices 0,1 \
  --replicate --reps 5 --warmup 2 --csv "$OUT/split.csv" "${inputs[@]}" > "$OUT/split.txt" 2>&1
bench_rc=$?
cut -c1-150 "$OUT/split.txt"
echo "test_gpu_split_devices=$test_rc split_bench=$bench_rc (124: stopped at its limit)"
