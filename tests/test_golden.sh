#!/bin/sh
# External checks against ../shared/testdata: stories260K (greedy ids from llama2.c, logits
# within 2e-4 for f32 and bf16), the llama3/qwen2 minis (logits from llama.cpp), and the minis
# of the other families and of the mixtures of experts (llama.cpp's logits within 1e-4, its
# argmax at every position). The KV cache is f32 here: the bound is about the model
# arithmetic (f16 keys move logits by ~3e-2).
set -e
b=${BUILD:-build}
data=../shared/testdata
. tests/need.sh
need_file test_golden ../shared/testdata "$data/stories260K-hf" || exit $need_exit
out=$b/tests/golden; mkdir -p $out
# quiet CMD...: CMD with what it prints kept aside; when it fails, the command and the end of
# that (a program that could not start may have printed nothing of its own)
quiet() { "$@" >$out/quiet.txt 2>&1 || { echo "failed (exit $?): $*"; tail -n 8 $out/quiet.txt; exit 1; }; }
g=$data/stories260K-golden

quiet $b/convert $data/stories260K-hf $out/s260k.llm
$b/generate --kv-type f32 -m $out/s260k.llm -n 256 -c 512 --print-ids > $out/s260k_ids.txt
if ! cmp -s $out/s260k_ids.txt $g/greedy_ids.txt; then
  echo "stories260K greedy ids differ from llama2.c:"; diff $out/s260k_ids.txt $g/greedy_ids.txt | head -5; exit 1
fi
echo "stories260K f32: 256 greedy tokens match llama2.c"
quiet $b/generate --kv-type f32 -m $out/s260k.llm -n 0 --ids-file $g/logits_ids.txt --dump-logits $out/s260k.f32
$b/tests/tool_compare $out/s260k.f32 $g/logits.f32 2e-4

quiet $b/convert $data/stories260K-hf-bf16 $out/s260k_bf16.llm
quiet $b/generate --kv-type f32 -m $out/s260k_bf16.llm -n 0 --ids-file $g/logits_ids.txt --dump-logits $out/s260k_bf16.f32
$b/tests/tool_compare $out/s260k_bf16.f32 $g/logits_bf16_ref.f32 2e-4

for m in llama3 qwen2; do
  gd=$data/$m-mini-golden
  quiet $b/convert $data/$m-mini-hf $out/$m.llm
  quiet $b/generate --kv-type f32 -m $out/$m.llm -n 0 --ids-file $gd/ids.txt --dump-logits $out/$m.f32
  vocab=$(grep -o '"vocab_size": *[0-9]*' $data/$m-mini-hf/config.json | grep -o '[0-9]*$')
  printf "%s-mini: " $m; $b/tests/tool_compare $out/$m.f32 $gd/logits.f32 2e-4 $vocab $gd/vocab_ids.txt
done

# The same llama3-mini checkpoint with its config in the transformers 5 spelling
# (rope_parameters instead of rope_theta + rope_scaling) must give the same logits.
m=$out/llama3-v5; mkdir -p $m
for f in model.safetensors tokenizer.json tokenizer_config.json generation_config.json; do ln -sf "$(cd $data/llama3-mini-hf && pwd)/$f" $m/$f; done
cat > $m/config.json <<'EOT'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
 "hidden_size": 64, "intermediate_size": 192, "num_hidden_layers": 2, "num_attention_heads": 4,
 "num_key_value_heads": 2, "head_dim": 16, "max_position_embeddings": 131072, "rms_norm_eps": 1e-05,
 "tie_word_embeddings": true, "vocab_size": 128256, "bos_token_id": 128000, "eos_token_id": 128001,
 "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "low_freq_factor": 1.0,
                     "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}
EOT
quiet $b/convert $m $out/llama3-v5.llm
quiet $b/generate --kv-type f32 -m $out/llama3-v5.llm -n 0 --ids-file $data/llama3-mini-golden/ids.txt --dump-logits $out/llama3-v5.f32
printf "llama3-mini, rope_parameters spelling: "
$b/tests/tool_compare $out/llama3-v5.f32 $data/llama3-mini-golden/logits.f32 2e-4 128256 $data/llama3-mini-golden/vocab_ids.txt

# Gemma 3 and Phi-3 in the transformers 5 spelling: rope_parameters per layer type (Gemma 3:
# full_attention the global theta, sliding_attention the local one) and partial_rotary_factor
# inside rope_parameters (Phi-3): the files equal those of the transformers 4 configs, and a
# local theta given either way reaches the file (it changes it).
v5() { # NAME SED-SCRIPT: NAME-v5/, the NAME mini with its config.json edited by SED-SCRIPT
  d=$out/$1-v5; mkdir -p $d
  for f in model.safetensors tokenizer.json tokenizer_config.json generation_config.json; do ln -sf "$(cd $data/$1-mini-hf && pwd)/$f" $d/$f; done
  sed "$2" $data/$1-mini-hf/config.json > $d/config.json
}
v5 gemma3 '/"rope_local_base_freq"/d; /"rope_scaling"/d; s/"rope_theta": 1000000.0,/"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000.0}, "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},/'
v5 phi3 '/"partial_rotary_factor"/d; /"rope_theta"/d; s/"rope_scaling": {/"rope_parameters": {"rope_theta": 10000.0, "partial_rotary_factor": 0.75,/; s/"type": "longrope"/"rope_type": "longrope"/'
for m in gemma3 phi3; do
  quiet $b/convert $data/$m-mini-hf $out/$m-v4.llm && quiet $b/convert $out/$m-v5 $out/$m-v5.llm
  cmp -s $out/$m-v4.llm $out/$m-v5.llm || { echo "$m-mini: the transformers 5 config gives another file"; exit 1; }
done
v5 gemma3 '/"rope_local_base_freq"/d; /"rope_scaling"/d; s/"rope_theta": 1000000.0,/"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000.0}, "sliding_attention": {"rope_type": "default", "rope_theta": 20000.0}},/'
quiet $b/convert $out/gemma3-v5 $out/gemma3-v5-20k.llm
sed 's/"rope_local_base_freq": 10000.0/"rope_local_base_freq": 20000.0/' $data/gemma3-mini-hf/config.json > $out/gemma3-v5/config.json
quiet $b/convert $out/gemma3-v5 $out/gemma3-v4-20k.llm
if cmp -s $out/gemma3-v5-20k.llm $out/gemma3-v4-20k.llm && ! cmp -s $out/gemma3-v4.llm $out/gemma3-v5-20k.llm; then
  echo "gemma3-mini, phi3-mini: the transformers 5 rope_parameters give the files of the transformers 4 configs"
else echo "gemma3-mini: rope_parameters.sliding_attention.rope_theta does not reach the file as rope_local_base_freq does"; exit 1; fi

# The families beyond Llama's anatomy (tiny random-weight checkpoints, the Mistral tokenizer
# files): every logit kept within 1e-4 of llama.cpp's and the argmax equal at every position.
# gemma3: sandwich norms, (1 + w) norms, per-head q/k norm, local/global rope theta, sliding
# layers, GELU-tanh; gemma2: soft-capping of scores and logits; phi3: fused qkv/gate_up,
# LongRoPE, partial rotary; smollm3: NoPE layers; granite: the four multipliers; olmo2:
# post-norms, full-width q/k norm; yarn: Qwen2 with YaRN.
for m in gemma3 gemma2 phi3 smollm3 granite olmo2 yarn; do
  gd=$data/$m-mini-golden
  need_file test_golden ../shared/testdata "$data/$m-mini-hf" "$gd" || exit $need_exit
  quiet $b/convert $data/$m-mini-hf $out/$m.llm
  quiet $b/generate --kv-type f32 -m $out/$m.llm -n 0 --ids-file $gd/ids.txt --dump-logits $out/$m.f32
  printf "%s-mini: " $m; $b/tests/tool_compare $out/$m.f32 $gd/logits.f32 1e-4 32000 $gd/vocab_ids.txt $gd/top20.txt
done

# Mixtures of experts (llama.cpp's logits): the whole prompt in one batch and token by token
# (-b 1: one token's experts only), within 1e-4 with the argmax of every position; two
# threads give bitwise the logits of one.
for m in qwen3moe mixtral; do
  gd=$data/$m-mini-golden
  quiet $b/convert $data/$m-mini-hf $out/$m.llm
  for bs in 64 1; do
    quiet $b/generate --kv-type f32 -b $bs -t 1 -m $out/$m.llm -n 0 --ids-file $gd/ids.txt --dump-logits $out/$m-b$bs.f32
    printf "%s-mini, %s: " $m "$([ $bs = 1 ] && echo token by token || echo one batch)"
    $b/tests/tool_compare $out/$m-b$bs.f32 $gd/logits.f32 1e-4 32000 $gd/vocab_ids.txt
    printf "%s-mini: " $m; $b/tests/tool_top1 $out/$m-b$bs.f32 32000 $gd/top20.txt
  done
  quiet $b/generate --kv-type f32 -b 1 -t 2 -m $out/$m.llm -n 0 --ids-file $gd/ids.txt --dump-logits $out/$m-t2.f32
  cmp -s $out/$m-b1.f32 $out/$m-t2.f32 || { echo "$m-mini: 2 threads change the logits"; exit 1; }
  echo "$m-mini: 2 threads give bitwise the logits of 1"
done
