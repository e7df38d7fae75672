#!/usr/bin/env bash
# Installs the built library into a temporary prefix, checks its SONAME and
# that it exports only the public C symbols, then builds and runs the C
# example against the installed tree, through find_package(spgemm) (mode
# cmake) or pkg-config (mode pkg-config; exits 77, "skipped", without it).
# The example runs on the host backend, so no GPU is needed.
# Usage: test_install.sh cmake|pkg-config BUILD_DIR SOURCE_DIR C_COMPILER CUDA_BIN_DIR
set -euo pipefail
mode=$1 build=$2 src=$3 cc=$4 cuda_bin=$5
if [ "$mode" = pkg-config ] && ! command -v pkg-config > /dev/null; then
  echo "SKIPPED: pkg-config is not installed"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
example="$src/tests/c/c_api_example.c"

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
lib=$(find "$prefix" -name 'libspgemm.so' | head -n 1)
[ -n "$lib" ] || { echo "FAIL: libspgemm.so was not installed"; exit 1; }
libdir=$(dirname "$lib")
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libspgemm.so.0" ] || { echo "FAIL: SONAME is '$soname'"; exit 1; }

# Exported (defined, global) symbols other than spgemm* and the linker's own.
# Names carry the version of cmake/spgemm.map (@@SPGEMM_0), whose node shows
# as an absolute (type A) symbol.
extra=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[B-Z]$/ {print $3}' | sed 's/@.*//' |
  grep -v -E '^(spgemm[A-Za-z]+|_init|_fini|_edata|_end|__bss_start)$' || true)
if [ -n "$extra" ]; then echo "FAIL: non-public exported symbols:"; echo "$extra" | head; exit 1; fi
echo "exports: $(nm -D --defined-only "$lib" | grep -c ' T spgemm') public functions, nothing else"

if [ "$mode" = cmake ]; then
cmake -S "$src/tests/install/consumer" -B "$work/cmake-consumer" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCUDAToolkit_ROOT="$cuda_bin/.." \
  -DSPGEMM_EXAMPLE_SOURCE="$example" > "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/cmake-consumer" >> "$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; exit 1; }
"$work/cmake-consumer/consumer" > /dev/null
echo "find_package(spgemm) consumer: built and ran"
exit 0
fi

pc_dir=$(dirname "$(find "$prefix" -name spgemm.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs spgemm)
"$cc" -std=c99 "$example" $flags -Wl,-rpath,"$libdir" -o "$work/pc-consumer"
"$work/pc-consumer" > /dev/null
echo "pkg-config consumer: built and ran"
