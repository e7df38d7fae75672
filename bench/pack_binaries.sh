#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copies the binaries a device call runs without building there into one
# folder (default .devstage/bin), side by side with libspgemm.so.0, so that
# a short lease spends no time compiling. The build must target the
# device's architecture (the default preset: sm_90).
# Usage: bench/pack_binaries.sh BUILD_DIR [DEST] [TARGET...]
#   TARGET: a file name under BUILD_DIR (default: test_gpu_split_devices
#   spgemm-split-bench)
set -euo pipefail
build=${1:?usage: bench/pack_binaries.sh BUILD_DIR [DEST] [TARGET...]}
dest=${2:-.devstage/bin}
shift $(($# < 2 ? $# : 2))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(test_gpu_split_devices spgemm-split-bench)
mkdir -p "$dest"
cp -L "$build/libspgemm.so.0" "$dest/"
for t in "${targets[@]}"; do
  found=$(find "$build" -type f -name "$t" -perm -u+x | head -1)
  [ -n "$found" ] || { echo "not built: $t" >&2; exit 1; }
  cp "$found" "$dest/"
done
du -sh "$dest"
