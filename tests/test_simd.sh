#!/bin/sh
# tests/test_kernels.c checks every kernel set the CPU runs, in one build that picks them at
# run time (the suite runs it as build/tests/test_kernels). Here it is built the compile-time
# way (LLM_NO_DISPATCH: a compiler without target attributes, the flags choosing the sets)
# for each instruction set, and once with only the scalar kernels and no threads, and run:
# every SIMD kernel against the scalar reference. x86 variants run where the
# CPU has the instructions (a row the CPU cannot run says SKIP, naming the feature: the rows
# that ran still count); aarch64 NEON is tests/test_simd_neon.sh.
set -e
. tests/need.sh
out=build/tests/simd; mkdir -p $out
cc=${CC:-cc}
warn="-std=c99 -Wall -Wextra -Wpedantic -Werror -O2"
run() { # name flags...
  name=$1; shift
  $cc $warn "$@" -o $out/$name tests/test_kernels.c -lm -lpthread
  printf "%-14s " $name; $out/$name | tail -1
}
run scalar -DLLM_NO_SIMD -DLLM_NO_THREADS
cpu=$(cat /proc/cpuinfo 2>/dev/null || true)
has() { echo "$cpu" | grep -qw "$1"; }
lacks() { printf "%-14s SKIP: the CPU lacks %s\n" "$1" "$2"; }
ct=-DLLM_NO_DISPATCH
if has avx2 && has fma && has f16c; then run avx2 $ct -mavx2 -mfma -mf16c; else lacks avx2 "avx2, fma or f16c"; fi
if has avx_vnni; then run avx2-vnni $ct -mavx2 -mfma -mf16c -mavxvnni; else lacks avx2-vnni avx_vnni; fi
if has avx512vnni || has avx512_vnni; then run avx512 $ct -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma -mf16c -fopenmp
else lacks avx512 avx512_vnni; fi
# The kernels as C++ too (g++ warns about intrinsics that gcc accepts): the run-time
# selection, and the compile-time one for this CPU.
if has avx2 && has fma && has f16c; then
  need "test_simd (C++ rows)" g++ g++ || exit $need_exit
  for flags in "-O1" "$ct -march=native"; do
    g++ -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -O1 $flags -o $out/cxx tests/test_kernels.c -lm -lpthread
    printf "%-14s " "c++ ${flags##* }"; $out/cxx | tail -1
  done
fi
