#!/bin/sh
# The aarch64 NEON kernels (with and without dotprod), cross-compiled and run under qemu
# against the scalar reference (tests/test_kernels.c). Needs gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross and qemu-user (tests/need.sh: skipped by make test without them).
set -e
. tests/need.sh
need test_simd_neon "gcc-aarch64-linux-gnu qemu-user" aarch64-linux-gnu-gcc qemu-aarch64 || exit $need_exit
out=build/tests/simd_neon; mkdir -p $out
warn="-std=c99 -Wall -Wextra -Wpedantic -Werror -O2"
variants="armv8-a armv8.2-a+dotprod"
# make test-all (CI) goes on to the aarch64 platform row, whose test_kernels runs these kernels
# from an armv8-a build by the same compiler (-O2 -Werror), under qemu in the same way.
if [ "${LLM_TEST_ALL:-0}" = 1 ]; then
  variants="armv8.2-a+dotprod"; echo "neon-armv8-a   in make test-platforms' aarch64 row (make test-all)"
fi
for v in $variants; do
  aarch64-linux-gnu-gcc $warn -march=$v -static -o $out/neon-$v tests/test_kernels.c -lm -lpthread
  printf "%-14s " neon-$v; qemu-aarch64 $out/neon-$v | tail -1
done
