#!/bin/sh
# k-quants against the f32 model on the shipped kjv-tiny model: 300 positions of text sampled
# from the f32 model (LLM_TEST_QUICK=1: 100), as test_accuracy.sh. Mean KL must come in the
# order of the bits:
#   q8_0 < q6_k < q5_k_m < q5_k < q4_k_m < q4_k < q4_0,
# and the q4_k_m file must be no larger than llama.cpp's Q4_K_M file of the same checkpoint
# (2,323,008 bytes: the GGUF of ../shared/testdata/gguf/kjv-tiny). Measured (300 positions;
# 100): q8_0 2.5e-4 (2.5e-4), q6_k 1.05e-3 (1.0e-3), q5_k_m 2.1e-3 (1.8e-3), q5_k 2.7e-3
# (2.5e-3), q4_k_m 8.1e-3 (8.5e-3; 2,254,848 bytes), q4_k 1.05e-2 (1.13e-2), q4_0 1.25e-2
# (1.25e-2). When that GGUF is there, llama.cpp's own Q4_K_M weights (imported by build/convert,
# bit for bit) are scored on the same positions and q4_k_m must be no worse (measured: 8.5e-3; 9.0e-3).
set -e
n=300; [ "${LLM_TEST_QUICK:-0}" = 1 ] && n=100
out=build/tests/accuracy_kquant; mkdir -p $out
types="f32 q8_0 q6_k q5_k_m q5_k q4_k_m q4_k q4_0"
for t in $types; do build/convert models/kjv-tiny $out/kjv-$t.llm --dtype $t >/dev/null 2>$out/convert-$t.log || { cat $out/convert-$t.log; exit 1; }; done
gguf=../shared/testdata/gguf/kjv-tiny/kjv-tiny-Q4_K_M.gguf
extra=
if [ -f $gguf ]; then build/convert $gguf $out/kjv-llamacpp-q4_k_m.llm >/dev/null 2>&1; extra=$out/kjv-llamacpp-q4_k_m.llm
else echo "note: $gguf is absent: llama.cpp's Q4_K_M is not scored"; fi
cands=; for t in $types; do [ $t = f32 ] || cands="$cands $out/kjv-$t.llm"; done
build/tests/tool_kl -n $n -s 2 --ids-file tests/data/kjv-tiny-golden/prompt_ids.txt $out/kjv-f32.llm $cands $extra | tee $out/kl.txt
size=$(wc -c < $out/kjv-q4_k_m.llm)
echo "q4_k_m file: $size bytes (llama.cpp's Q4_K_M: 2323008)"
awk -v size=$size '
  { sub(/^.*kjv-/, ""); sub(/\.llm:/, ""); kl[$1] = $3 }
  END {
    n = split("q8_0 q6_k q5_k_m q5_k q4_k_m q4_k q4_0", order, " "); bad = 0
    for (i = 1; i < n; i++)
      if (!(kl[order[i]] < kl[order[i + 1]])) { print order[i] " mean KL " kl[order[i]] " is not below " order[i + 1] "'"'"'s " kl[order[i + 1]]; bad = 1 }
    if (!(size <= 2323008)) { print "q4_k_m file of " size " bytes is larger than llama.cpp'"'"'s Q4_K_M (2323008)"; bad = 1 }
    if (("llamacpp-q4_k_m" in kl) && !(kl["q4_k_m"] <= kl["llamacpp-q4_k_m"])) {
      print "q4_k_m mean KL " kl["q4_k_m"] " is above llama.cpp'"'"'s Q4_K_M " kl["llamacpp-q4_k_m"]; bad = 1 }
    exit bad
  }' $out/kl.txt
echo "k-quant accuracy holds"
