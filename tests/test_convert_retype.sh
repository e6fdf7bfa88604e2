#!/bin/sh
# convert IN.llm OUT.llm --dtype T: a model file in another type is the file a conversion of
# the checkpoint to T writes, byte for byte, from the checkpoint's own types (bf16 here) or
# from f32; a retyped quantized file opens and runs; without --dtype, onto itself and from
# a vocab-only file it is refused.
set -e
b=${BUILD:-build}
out=$b/tests/convert_retype; rm -rf $out; mkdir -p $out
m=models/kjv-tiny
$b/convert $m $out/kept.llm >/dev/null 2>&1
$b/convert $m $out/f32.llm --dtype f32 >/dev/null 2>&1
n=0
# LLM_TEST_QUICK=1 (an emulated CPU, the sanitizers): a 16-bit type, the 8-bit one, q4_0
# (retyped again below) and a k-quant mix.
types="f32 f16 bf16 q8_0 q4_0 q4_k q6_k q4_k_m q5_k_m"; [ "${LLM_TEST_QUICK:-0}" = 1 ] && types="f16 q8_0 q4_0 q4_k_m"
for t in $types; do
  $b/convert $m $out/direct-$t.llm --dtype $t >/dev/null 2>&1
  for from in kept f32; do
    $b/convert $out/$from.llm $out/$from-$t.llm --dtype $t >/dev/null 2>&1 || { echo "FAIL: convert $from.llm --dtype $t"; exit 1; }
    cmp -s $out/direct-$t.llm $out/$from-$t.llm || { echo "FAIL: $from.llm --dtype $t differs from the checkpoint converted to $t"; exit 1; }
    n=$((n + 1))
  done
done
$b/convert $out/direct-q4_0.llm $out/q4-q8.llm --dtype q8_0 >/dev/null 2>&1
$b/generate -m $out/q4-q8.llm -p "In the beginning" -n 4 >/dev/null 2>&1 || { echo "FAIL: a q4_0 file retyped to q8_0 does not run"; exit 1; }
refuse() { # WHAT ARGS...
  what=$1; shift
  if $b/convert "$@" > $out/refused.log 2>&1; then echo "FAIL: convert $* was accepted"; exit 1; fi
  echo "refused ($what): $(tail -n 1 $out/refused.log)"
}
refuse "no --dtype" $out/kept.llm $out/x.llm
refuse "onto itself" $out/kept.llm $out/kept.llm --dtype q8_0
$b/convert $m $out/vocab.llm --vocab-only >/dev/null 2>&1
refuse "vocab-only" $out/vocab.llm $out/x.llm --dtype q8_0
[ ! -e $out/x.llm ] || { echo "FAIL: a refused conversion left $out/x.llm"; exit 1; }
echo "test_convert_retype.sh: $n retyped files equal to direct conversions byte for byte"
