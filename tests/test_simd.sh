#!/bin/sh
# Builds tests/test_kernels.c for each instruction set the header has kernels for and runs
# it: every SIMD kernel against the scalar reference. x86 variants run where the CPU has
# the instructions; aarch64 NEON (with and without dotprod) is cross-compiled and run under
# qemu (packages gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user: .ci/run installs
# them; without them the test fails).
set -e
out=build/tests/simd; mkdir -p $out
cc=${CC:-cc}
warn="-std=c99 -Wall -Wextra -Wpedantic -Werror -O2"
run() { # name flags...
  name=$1; shift
  $cc $warn "$@" -o $out/$name tests/test_kernels.c -lm -lpthread
  printf "%-14s " $name; $out/$name | tail -1
}
run scalar -DLLM_NO_SIMD
run nothreads -DLLM_NO_THREADS
cpu=$(cat /proc/cpuinfo 2>/dev/null || true)
has() { echo "$cpu" | grep -qw "$1"; }
if has avx2 && has fma && has f16c; then run avx2 -mavx2 -mfma -mf16c; fi
if has avx_vnni; then run avx2-vnni -mavx2 -mfma -mf16c -mavxvnni; fi
if has avx512vnni || has avx512_vnni; then run avx512 -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma -mf16c -fopenmp; fi
# The kernels as C++ too (g++ warns about intrinsics that gcc accepts).
if has avx2 && has fma && has f16c; then
  command -v g++ >/dev/null 2>&1 || { echo "g++ is not installed (.ci/run installs it)"; exit 1; }
  for flags in "-mavx2 -mfma -mf16c" "-march=native"; do
    g++ -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -O1 $flags -o $out/cxx tests/test_kernels.c -lm -lpthread
    printf "%-14s " "c++ ${flags%% *}"; $out/cxx | tail -1
  done
fi
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
  command -v $tool >/dev/null 2>&1 || { echo "$tool is not installed (.ci/run installs gcc-aarch64-linux-gnu and qemu-user)"; exit 1; }
done
for v in armv8-a armv8.2-a+dotprod; do
  aarch64-linux-gnu-gcc $warn -march=$v -static -o $out/neon-$v tests/test_kernels.c -lm -lpthread
  printf "%-14s " neon-$v; qemu-aarch64 $out/neon-$v | tail -1
done
