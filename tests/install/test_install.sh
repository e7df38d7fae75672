#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the built library into a temporary prefix, checks its SONAME, that
# it exports only the public C symbols and that the installed header,
# pkg-config file and CMake package carry the project's version, then builds
# and runs a C program against the installed tree, through find_package(spgemm)
# (modes cmake, cmake-gpu) or pkg-config (modes pkg-config, pkg-config-gpu;
# exit 77, "skipped", without pkg-config):
#   cmake, pkg-config          tests/c/c_api_example.c, on the host backend
#                              (no GPU needed);
#   cmake-gpu, pkg-config-gpu  examples/c/gpu_product.c, on device memory: it
#                              calls the CUDA runtime itself (cudaMalloc), so
#                              this is what a GPU application's build needs.
#                              It exits 77, "skipped", without a GPU, and so
#                              does this script then.
# Mode fortran (registered when the build has the Fortran module): checks that
# include/spgemm/ holds spgemm.f90 and spgemm.mod, then builds and runs
# tests/install/fortran_consumer.f90 against the installed tree, by hand and
# through find_package(spgemm) (exits 77, "skipped", if FORTRAN_COMPILER is
# missing).
# Usage: test_install.sh MODE BUILD_DIR SOURCE_DIR C_COMPILER CUDA_BIN_DIR [FORTRAN_COMPILER]
set -euo pipefail
mode=$1 build=$2 src=$3 cc=$4 cuda_bin=$5 fc=${6:-}
case $mode in
  cmake | pkg-config) example="$src/tests/c/c_api_example.c" ;;
  cmake-gpu | pkg-config-gpu) example="$src/examples/c/gpu_product.c" ;;
  fortran) example= ;;
  *) echo "unknown mode '$mode'"; exit 2 ;;
esac
if [ "${mode%-gpu}" = pkg-config ] && ! command -v pkg-config > /dev/null; then
  echo "SKIPPED: pkg-config is not installed"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

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

# One version: the project's, in the header's macros, spgemm.pc and the CMake package.
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
header="$prefix/include/spgemm/spgemm.h"
header_version=$(for part in MAJOR MINOR PATCH; do
  sed -n "s/^#define SPGEMM_VERSION_$part \([0-9]*\).*/\1/p" "$header"; done | paste -sd.)
pc_version=$(sed -n 's/^Version: //p' "$(find "$prefix" -name spgemm.pc | head -n 1)")
cmake_version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' \
  "$(find "$prefix" -name spgemmConfigVersion.cmake | head -n 1)")
if [ -z "$version" ] || [ "$header_version" != "$version" ] || [ "$pc_version" != "$version" ] ||
   [ "$cmake_version" != "$version" ]; then
  echo "FAIL: versions differ: project '$version', spgemm.h '$header_version'," \
       "spgemm.pc '$pc_version', spgemmConfigVersion.cmake '$cmake_version'"
  exit 1
fi
echo "version $version in spgemm.h, spgemm.pc and spgemmConfigVersion.cmake"

# Runs the consumer built from $example; its exit status 77 (no GPU) is this script's.
run_consumer() {
  local rc=0 out
  out=$("$1" 2>&1) || rc=$?
  if [ $rc -eq 77 ]; then echo "$out" | grep SKIPPED; exit 77; fi
  [ $rc -eq 0 ] || { echo "$out"; echo "FAIL: $(basename "$example") exited $rc"; exit 1; }
}

if [ "$mode" = fortran ]; then
for f in spgemm.f90 spgemm.mod; do
  [ -f "$prefix/include/spgemm/$f" ] || { echo "FAIL: include/spgemm/$f was not installed"; exit 1; }
done
[ -f "$libdir/libspgemm_fortran.a" ] || { echo "FAIL: libspgemm_fortran.a was not installed"; exit 1; }
echo "Fortran module installed: include/spgemm/spgemm.f90, spgemm.mod, $(basename "$libdir")/libspgemm_fortran.a"
if [ -z "$fc" ] || ! command -v "$fc" > /dev/null; then
  echo "SKIPPED: the Fortran compiler '$fc' is not available"
  exit 77
fi
fexample="$src/tests/install/fortran_consumer.f90"
(cd "$work" && "$fc" -I"$prefix/include/spgemm" "$fexample" -L"$libdir" -lspgemm_fortran -lspgemm \
  -Wl,-rpath,"$libdir" -o "$work/f-consumer")
"$work/f-consumer" > /dev/null
echo "Fortran consumer (by hand): built and ran"
cmake -S "$src/tests/install/fortran_consumer" -B "$work/f-cmake-consumer" \
  -DCMAKE_Fortran_COMPILER="$fc" -DCMAKE_PREFIX_PATH="$prefix" -DCUDAToolkit_ROOT="$cuda_bin/.." \
  -DSPGEMM_EXAMPLE_SOURCE="$fexample" > "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/f-cmake-consumer" >> "$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; exit 1; }
"$work/f-cmake-consumer/consumer" > /dev/null
echo "Fortran consumer (find_package(spgemm), spgemm::spgemm_fortran): built and ran"
exit 0
fi

if [ "${mode%-gpu}" = cmake ]; then
cmake -S "$src/tests/install/consumer" -B "$work/cmake-consumer" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCUDAToolkit_ROOT="$cuda_bin/.." \
  -DSPGEMM_EXAMPLE_SOURCE="$example" > "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/cmake-consumer" >> "$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; exit 1; }
run_consumer "$work/cmake-consumer/consumer"
echo "find_package(spgemm) consumer ($(basename "$example")): built and ran"
exit 0
fi

pc_dir=$(dirname "$(find "$prefix" -name spgemm.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs spgemm)
# The flags alone build the program; the run paths find libspgemm and the CUDA
# runtime in their -L directories where the loader's own paths do not.
rpaths=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --libs-only-L spgemm | sed 's/-L/-Wl,-rpath,/g')
"$cc" -std=c99 "$example" $flags $rpaths -o "$work/pc-consumer"
run_consumer "$work/pc-consumer"
echo "pkg-config consumer ($(basename "$example")): built and ran"
