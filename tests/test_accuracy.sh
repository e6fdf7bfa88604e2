#!/bin/sh
# Quantized weights against the f32 model on the shipped kjv-tiny model (trained, so its
# distributions mean something): 300 positions of text sampled from the f32 model.
# q8_0: top-1 agreement >= 98% and mean KL <= 1e-3 (measured: ~2.5e-4, 99.3%).
# q4_0: mean KL no larger than with ggml's reference Q4_0 rounding of the same weights, and
# <= 0.03 (measured: ~0.0125 vs ~0.0143 for ggml's rounding). With LLM_TEST_QUICK=1 (emulated
# CPUs) the same bounds on 100 positions (measured: q8_0 ~2.5e-4, 100%; q4_0 ~0.0125 vs ~0.0149).
# bf16 weights with bf16 dot products (llm_ctx_desc.bf16_dot; each sequence evaluated as one
# prompt, as only prompts use them): q8_0's bounds (measured: ~9e-6, 100%); a line says SKIP
# for them where the CPU has none.
set -e
n=300; [ "${LLM_TEST_QUICK:-0}" = 1 ] && n=100
out=build/tests/accuracy; mkdir -p $out
for t in f32 bf16 q8_0 q4_0; do build/convert models/kjv-tiny $out/kjv-$t.llm --dtype $t >/dev/null; done
build/convert models/kjv-tiny $out/kjv-q4_0-ggml.llm --dtype q4_0 --quant-reference >/dev/null
build/tests/tool_kl -n $n -s 2 --ids-file tests/data/kjv-tiny-golden/prompt_ids.txt $out/kjv-f32.llm \
  $out/kjv-q8_0.llm $out/kjv-q4_0.llm $out/kjv-q4_0-ggml.llm | tee $out/kl.txt
awk '
  /q8_0.llm:/ { kl8 = $3; top8 = $7 + 0 }
  /q4_0.llm:/ { kl4 = $3 }
  /q4_0-ggml.llm:/ { klg = $3 }
  END {
    bad = 0
    if (!(top8 >= 98)) { print "q8_0 top-1 agreement " top8 "% < 98%"; bad = 1 }
    if (!(kl8 <= 0.001)) { print "q8_0 mean KL " kl8 " > 1e-3"; bad = 1 }
    if (!(kl4 <= klg)) { print "q4_0 mean KL " kl4 " is above ggml rounding " klg; bad = 1 }
    if (!(kl4 <= 0.03)) { print "q4_0 mean KL " kl4 " > 0.03"; bad = 1 }
    exit bad
  }' $out/kl.txt
build/tests/tool_kl -n $n -s 2 --batch --bf16-dot --ids-file tests/data/kjv-tiny-golden/prompt_ids.txt $out/kjv-f32.llm \
  $out/kjv-bf16.llm | tee $out/kl-bf16.txt
if grep -q 'bf16-dot$' $out/kl-bf16.txt; then
  awk '{ if (!($7 + 0 >= 98)) { print "bf16 dot top-1 agreement " $7 " < 98%"; exit 1 }
         if (!($3 <= 0.001)) { print "bf16 dot mean KL " $3 " > 1e-3"; exit 1 } }' $out/kl-bf16.txt
else
  echo "bf16 dot products' accuracy SKIP: the CPU lacks avx512_bf16" # the other checks ran
fi
echo "accuracy bounds hold"
