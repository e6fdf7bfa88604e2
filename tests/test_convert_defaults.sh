#!/bin/sh
# What a config.json may leave out or spell the old way, read as the family's transformers
# config class reads it (build/gen_model's variants, each edit converted to the same bytes
# as the variant itself): tie_word_embeddings left out is the class default, true for
# Gemma 2, Gemma 3 and SmolLM3 (transformers does not write a default it shares with its
# base class) and false for Llama, whose tied checkpoint then has no head to read; Phi-3's
# rope_scaling type "su" and "yarn" are LongRoPE (Phi3Config renames them); a Qwen3-MoE
# config may count its experts as num_local_experts; each MLP's activation key.
b=${BUILD:-build}
out=$b/tests/convert_defaults; rm -rf $out; mkdir -p $out
fail=0

# same VARIANT NAME SED-EXPRESSION: the edited config converts to the variant's bytes
same() {
  d=$out/$1
  [ -e $d.llm ] || { $b/gen_model $d --variant $1 >/dev/null && $b/convert $d $d.llm >/dev/null 2>&1; } || { echo "FAIL $1 does not convert"; fail=1; return; }
  rm -rf $out/edit; cp -r $d $out/edit
  sed "$3" $d/config.json > $out/edit/config.json
  if cmp -s $d/config.json $out/edit/config.json; then echo "FAIL $1: the edit ($2) changed nothing"; fail=1; return; fi
  if ! $b/convert $out/edit $out/edit.llm >$out/edit.log 2>&1; then echo "FAIL $1 $2: $(tail -1 $out/edit.log)"; fail=1; return; fi
  if cmp -s $d.llm $out/edit.llm; then echo "ok   $1: $2, the same file"; else echo "FAIL $1: $2 converts to other bytes"; fail=1; fi
}

for v in gemma2 gemma3 smollm3; do same $v "no tie_word_embeddings" '/"tie_word_embeddings": true,/d'; done
same phi3 "rope_scaling type su" 's/"type": "longrope"/"type": "su"/'
same phi3 "rope_scaling type yarn" 's/"type": "longrope"/"type": "yarn"/'
same qwen3-moe "num_local_experts" 's/"num_experts":/"num_local_experts":/'
# the activation key each MLP reads: Gemma 2 and 3 hidden_activation only (its default
# gelu_pytorch_tanh when absent, whatever hidden_act says), Gemma 1 hidden_act only
for v in gemma2 gemma3; do same $v "hidden_act silu instead of hidden_activation" 's/"hidden_activation": "gelu_pytorch_tanh"/"hidden_act": "silu"/'; done
same gemma "hidden_activation silu beside hidden_act gelu" 's/"hidden_activation": "gelu_pytorch_tanh"/"hidden_activation": "silu"/'

# Llama's class unties: without the key its tied checkpoint lacks lm_head.weight
d=$out/llama; $b/gen_model $d --variant llama-gqa-tied >/dev/null
sed '/"tie_word_embeddings": true,/d' $d/config.json > $d/config.edit && mv $d/config.edit $d/config.json
if $b/convert $d $out/llama.llm >$out/llama.log 2>&1; then echo "FAIL llama without tie_word_embeddings converted as tied"; fail=1
elif grep -q "lm_head.weight" $out/llama.log; then echo "ok   llama: no tie_word_embeddings is untied, refused for want of lm_head.weight"
else echo "FAIL llama without tie_word_embeddings: $(tail -1 $out/llama.log)"; fail=1; fi
exit $fail
