#!/bin/sh
# Run-time kernel selection: one portable build of generate (cc -O2, no -march) forced to
# each kernel set the CPU runs (--kernels NAME) gives bitwise the logits of a build that has
# only that set, chosen at compile time from target flags (LLM_NO_DISPATCH; LLM_NO_SIMD for
# scalar); and build/convert forced to each set (--kernels NAME), on 1 or 3 threads, writes
# the bytes of its default run for f16, bf16 and every quantized type. A set the CPU lacks
# says so on its line (the sets that ran still count). x86-64 only: the aarch64 sets are
# tests/test_simd_neon.sh's.
set -e
. tests/need.sh
b=${BUILD:-build}
out=$b/tests/dispatch; rm -rf $out; mkdir -p $out
cc=${CC:-cc}
case $(uname -m) in x86_64|amd64) ;; *) echo "SKIP: run-time selection is tested on x86-64"; exit 0;; esac
flags="-std=c99 -O2 -Werror"
fail() { echo "FAIL $*"; exit 1; }
$cc $flags -o $out/portable programs/generate.c programs/llm.c -lm -lpthread
$b/convert models/kjv-tiny $out/kjv-f32.llm --dtype f32 >/dev/null 2>&1
for t in f16 q8_0 q4_0 q4_k_m; do $b/convert models/kjv-tiny $out/kjv-$t.llm --dtype $t >/dev/null 2>&1; done
ids="1 5 9 12 3 7 2 8 11 4 6 10 13 14 15 16"
dump() { # GENERATE DIR [flags]: the logits of every model, a prompt at once and token by token
  g=$1; d=$2; shift 2; mkdir -p $d
  for m in $out/*.llm; do
    n=$(basename $m .llm)
    $g -m $m -t 2 -n 0 --ids "$ids" --kv-type f32 --dump-logits $d/$n.f32 "$@" >/dev/null 2>$d/$n.err || fail "$g $*: $(cat $d/$n.err)"
    $g -m $m -t 1 -n 0 -b 1 --ids "$ids" --dump-logits $d/$n-b1.f32 "$@" >/dev/null 2>$d/$n.err || fail "$g $*: $(cat $d/$n.err)"
  done
}
cpu=$(cat /proc/cpuinfo 2>/dev/null || true)
has() { echo "$cpu" | grep -qw "$1"; }
check() { # SET FLAGS...: the portable build forced to SET against a compile-time build of SET
  set=$1; shift
  $cc $flags "$@" -o $out/only-$set programs/generate.c programs/llm.c -lm -lpthread
  $out/only-$set -m $out/kjv-f32.llm -n 0 -v 2>&1 | grep -q "kernels $set " || fail "the $set build runs $($out/only-$set -m $out/kjv-f32.llm -n 0 -v 2>&1 | grep kernels)"
  dump $out/only-$set $out/ref-$set
  dump $out/portable $out/run-$set --kernels $set
  n=0; for f in $out/ref-$set/*.f32; do cmp -s $f $out/run-$set/$(basename $f) || { n=$((n + 1)); echo "  differs: $(basename $f)"; }; done
  [ $n = 0 ] || fail "$set: $n logits files differ between --kernels $set and a compile-time $set build"
  printf "%-14s ok: %s files bitwise equal\n" $set "$(ls $out/ref-$set/*.f32 | wc -l | tr -d ' ')"
}
qtypes="f16 bf16 q8_0 q4_0 q4_k q5_k q6_k q4_k_m q5_k_m"
mkdir -p $out/conv
for t in $qtypes; do $b/convert models/kjv-tiny $out/conv/kjv-$t.llm --dtype $t >/dev/null 2>&1 || fail "convert --dtype $t"; done
quant() { # SET THREADS: the converter's quantizers of SET on THREADS threads write the default run's bytes
  set=$1; d=$out/conv-$1-$2; mkdir -p $d
  for t in $qtypes; do
    OMP_NUM_THREADS=$2 $b/convert models/kjv-tiny $d/kjv-$t.llm --dtype $t --kernels $set >/dev/null 2>$d/$t.err || fail "convert --kernels $set: $(tail -1 $d/$t.err)"
    cmp -s $d/kjv-$t.llm $out/conv/kjv-$t.llm || fail "convert --dtype $t --kernels $set on $2 threads writes other bytes than the default run"
  done
  printf "%-14s ok: convert writes the same bytes (%s, %s threads)\n" $set "$qtypes" $2
}
lacks() { printf "%-14s SKIP: the CPU lacks %s\n" "$1" "$2"; }
quant scalar 1; quant scalar 3
check scalar -DLLM_NO_SIMD
ct=-DLLM_NO_DISPATCH
if has avx2 && has fma && has f16c; then check avx2 $ct -mavx2 -mfma -mf16c; quant avx2 3; else lacks avx2 "avx2, fma or f16c"; fi
if has avx_vnni; then check avx2-vnni $ct -mavx2 -mfma -mf16c -mavxvnni; else lacks avx2-vnni avx_vnni; fi
if has avx512vnni || has avx512_vnni; then check avx512 $ct -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma -mf16c; quant avx512 1
else lacks avx512 avx512_vnni; fi
if has amx_int8 && has amx_tile && { has avx512vnni || has avx512_vnni; }; then
  check avx512-amx $ct -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma -mf16c -mamx-tile -mamx-int8
else lacks avx512-amx amx_int8; fi
# AUTO runs the best set; a set this build or CPU lacks is refused, naming it.
best=$($out/portable -m $out/kjv-f32.llm -n 0 -v 2>&1 | sed -n 's/^generate: kernels \([a-z0-9-]*\) .*/\1/p')
[ -n "$best" ] && $out/portable -m $out/kjv-f32.llm -n 0 -v 2>&1 | grep -q "(kernels $best," || fail "-v: $($out/portable -m $out/kjv-f32.llm -n 0 -v 2>&1)"
if $out/portable -m $out/kjv-f32.llm -n 0 --kernels neon > $out/neon.txt 2>&1; then fail "--kernels neon ran on x86-64"; fi
grep -q 'neon kernels are not in this build' $out/neon.txt || fail "--kernels neon: $(cat $out/neon.txt)"
if $b/convert models/kjv-tiny $out/conv/neon.llm --dtype q4_0 --kernels neon > $out/cneon.txt 2>&1; then fail "convert --kernels neon ran on x86-64"; fi
grep -q 'neon kernels are not in this build' $out/cneon.txt || fail "convert --kernels neon: $(cat $out/cneon.txt)"
echo "ok   auto runs $best; --kernels neon is refused with a message (generate, convert)"
