#!/bin/sh
# GGUF import of the families there are no llama.cpp files of here: each mini checkpoint of
# ../shared/testdata converted from safetensors (f32), written as the GGUF llama.cpp's
# convert_hf_to_gguf.py makes for its architecture (tests/tool_gguf_write.c: llama.cpp's key
# and tensor names, Q/K rows permuted where LlamaModel.permute applies, experts stacked into
# 3-D tensors, Phi-3's fused projections and LongRoPE tensors, YaRN's keys), imported back:
# the logits must be those of the safetensors conversion, bit for bit, on the golden's ids; the
# same for build/gen_model's Qwen2-MoE, OLMoE, Gemma 1 and linear rope scaling
# (rope.scaling.type and factor), and within 1e-4 for Llama 3's rope scaling stored as
# rope_freqs.weight.
set -e
b=${BUILD:-build}
data=../shared/testdata
. tests/need.sh
need_file test_gguf_families ../shared/testdata "$data/olmo2-mini-hf" "$data/qwen3moe-mini-hf" || exit $need_exit
out=$b/tests/gguf_families; mkdir -p $out
fail=0; n=0
# Gemma 3 as llama.cpp runs it: a global layer every sixth (the mini has one every third), so
# the checkpoint is compared with the same config.json saying so
mkdir -p $out/gemma3p6-mini-hf
for f in model.safetensors tokenizer.json tokenizer_config.json generation_config.json; do
  [ -e $data/gemma3-mini-hf/$f ] && ln -sf "$(cd $data/gemma3-mini-hf && pwd)/$f" $out/gemma3p6-mini-hf/$f
done
sed '/"layer_types"/,/\]/d; s/"sliding_window_pattern": 3/"sliding_window_pattern": 6/' $data/gemma3-mini-hf/config.json > $out/gemma3p6-mini-hf/config.json
# YaRN with the ramp and the attention factor given (stored as yarn_beta_fast, yarn_beta_slow
# and yarn_attn_factor)
mkdir -p $out/yarnb-mini-hf
for f in model.safetensors tokenizer.json tokenizer_config.json generation_config.json; do
  [ -e $data/yarn-mini-hf/$f ] && ln -sf "$(cd $data/yarn-mini-hf && pwd)/$f" $out/yarnb-mini-hf/$f
done
sed 's/"rope_type": "yarn"/"rope_type": "yarn", "beta_fast": 16.0, "beta_slow": 2.0, "attention_factor": 1.25/' $data/yarn-mini-hf/config.json > $out/yarnb-mini-hf/config.json

# phi3: Q, K and V fused in attn_qkv, gate and up in ffn_up, LongRoPE as factor tensors, partial
# rotary; also as F16 and as Q8_0 (a q8_0 conversion's blocks), whose fused rows are cut at
# other byte offsets
for pair in olmo2:olmo2 granite:granite smollm3:smollm3 qwen3moe:qwen3moe mixtral:llama gemma2:gemma2:8 gemma3p6:gemma3:8 phi3:phi3 phi3f16:phi3 phi3q8:phi3 yarn:qwen2 yarnb:qwen2; do
  m=${pair%%:*}; a=${pair#*:}; win=${a#*:}; a=${a%%:*}; [ "$win" != "$a" ] || win=
  src=$data/$m-mini-hf; ids=$data/$m-mini-golden/ids.txt; type=f32
  case $m in
    gemma3p6) src=$out/gemma3p6-mini-hf; ids=$data/gemma3-mini-golden/ids.txt ;;
    yarnb) src=$out/yarnb-mini-hf; ids=$data/yarn-mini-golden/ids.txt ;;
    phi3f16) src=$data/phi3-mini-hf; ids=$data/phi3-mini-golden/ids.txt; type=f16 ;;
    phi3q8) src=$data/phi3-mini-hf; ids=$data/phi3-mini-golden/ids.txt; type=q8_0 ;;
  esac
  $b/convert $src $out/$m-hf.llm --dtype $type > $out/$m-hf.log 2>&1 || { echo "FAIL $m: convert"; cat $out/$m-hf.log; fail=1; continue; }
  $b/tests/tool_gguf_write $a $out/$m-hf.llm $out/$m.gguf $win --type $type > /dev/null || { echo "FAIL $m: tool_gguf_write"; fail=1; continue; }
  $b/convert $out/$m.gguf $out/$m-gguf.llm > $out/$m-gguf.log 2>&1 || { echo "FAIL $m: convert $m.gguf"; cat $out/$m-gguf.log; fail=1; continue; }
  for w in hf gguf; do
    $b/generate --kv-type f32 -m $out/$m-$w.llm -n 0 --ids-file $ids --dump-logits $out/$m-$w.f32 > $out/$m-$w.gen 2>&1 ||
      { echo "FAIL $m: generate ($w)"; cat $out/$m-$w.gen; fail=1; }
  done
  if cmp -s $out/$m-hf.f32 $out/$m-gguf.f32; then echo "$m.gguf ($a): logits bitwise equal to the safetensors conversion's ($(wc -c < $out/$m-hf.f32) bytes)"; n=$((n + 1))
  else echo "FAIL $m.gguf ($a): logits differ from the safetensors conversion's"; $b/tests/tool_compare $out/$m-gguf.f32 $out/$m-hf.f32 0 || true; fail=1; fi
done
# build/gen_model's Qwen2-MoE (a shared expert with its gate, q/k/v biases), OLMoE, Llama
# with linear rope scaling and Gemma 1 (with hidden_act gelu_pytorch_tanh, the GELU llama.cpp
# runs)
echo "1 17 33 5 99 64 2 127 80 45 12 3 77 101 56 9" > $out/gen-ids.txt
for pair in qwen2-moe:qwen2moe olmoe:olmoe llama-linear:llama gemma:gemma; do
  m=${pair%%:*}; a=${pair#*:}
  $b/gen_model $out/$m-gen --variant $m > /dev/null &&
    { [ $m != gemma ] || sed -i.orig 's/"hidden_act": "gelu"/"hidden_act": "gelu_pytorch_tanh"/' $out/$m-gen/config.json; } &&
    $b/convert $out/$m-gen $out/$m-hf.llm --dtype f32 > $out/$m-hf.log 2>&1 &&
    $b/tests/tool_gguf_write $a $out/$m-hf.llm $out/$m.gguf > /dev/null && $b/convert $out/$m.gguf $out/$m-gguf.llm > $out/$m-gguf.log 2>&1 ||
    { echo "FAIL $m: conversion"; cat $out/$m-gguf.log; fail=1; continue; }
  for w in hf gguf; do
    $b/generate --kv-type f32 -m $out/$m-$w.llm -n 0 --ids-file $out/gen-ids.txt --dump-logits $out/$m-$w.f32 > $out/$m-$w.gen 2>&1 || { echo "FAIL $m: generate ($w)"; fail=1; }
  done
  if cmp -s $out/$m-hf.f32 $out/$m-gguf.f32; then echo "$m.gguf ($a): logits bitwise equal to the safetensors conversion's ($(wc -c < $out/$m-hf.f32) bytes)"; n=$((n + 1))
  else echo "FAIL $m.gguf ($a): logits differ from the safetensors conversion's"; fail=1; fi
done

# Llama 3's rope scaling as llama.cpp stores it, one factor per rotary pair in rope_freqs.weight
# (computed by the converter in double from float32 frequencies, where HF computes the scaled
# frequencies in float32): the same logits within 1e-4
m=llama3
$b/convert $data/$m-mini-hf $out/$m-hf.llm --dtype f32 > $out/$m-hf.log 2>&1 && $b/tests/tool_gguf_write llama $out/$m-hf.llm $out/$m.gguf > /dev/null &&
  $b/convert $out/$m.gguf $out/$m-gguf.llm > $out/$m-gguf.log 2>&1 || { echo "FAIL $m: conversion"; cat $out/$m-gguf.log; fail=1; }
for w in hf gguf; do
  $b/generate --kv-type f32 -m $out/$m-$w.llm -n 0 --ids-file $data/$m-mini-golden/ids.txt --dump-logits $out/$m-$w.f32 > $out/$m-$w.gen 2>&1 || { echo "FAIL $m: generate ($w)"; fail=1; }
done
printf "llama3.gguf (llama, rope_freqs.weight): "
$b/tests/tool_compare $out/$m-gguf.f32 $out/$m-hf.f32 1e-4 || fail=1

[ $fail = 0 ] || { echo "FAIL test_gguf_families.sh"; exit 1; }
echo "test_gguf_families.sh: $n architectures imported from GGUF with the logits of their safetensors conversion, bit for bit"
