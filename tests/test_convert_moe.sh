#!/bin/sh
# The converter on mixtures of experts (build/gen_model's variants): Mixtral's
# block_sparse_moe.experts.E.w1/w3/w2 stored as mlp.experts.E.gate/up/down_proj; with q8_0
# the routers stay f32 and the experts are quantized; a config.json that does not match
# the checkpoint's experts (fewer experts, a dense layer where the checkpoint has a sparse
# one and the reverse) or is out of range is refused with a message, leaving no file; OLMoE
# converts with full-width q/k norms and experts in every layer, and its clip_qkv is refused.
set -e
b=${BUILD:-build}
out=$b/tests/convert_moe; rm -rf $out; mkdir -p $out
fail() { echo "FAIL: $*"; exit 1; }

$b/gen_model $out/mixtral --variant mixtral >/dev/null
$b/convert $out/mixtral $out/mixtral.llm --dtype q8_0 > /dev/null 2> $out/mixtral.err || fail "mixtral does not convert: $(tail -1 $out/mixtral.err)"
grep -q 'model.layers.0.mlp.experts.7.up_proj.weight *f32 *-> q8_0' $out/mixtral.err || fail "mixtral's w3 is not stored as a q8_0 up_proj"
grep -q 'model.layers.1.mlp.gate.weight *f32 *-> f32' $out/mixtral.err || fail "mixtral's router is not kept f32 with q8_0"
! grep -q 'block_sparse_moe\|\.w[123]\.' $out/mixtral.err || fail "a Mixtral name is stored as it was"
echo "ok   mixtral: block_sparse_moe.experts.E.w1/w3/w2 stored as mlp.experts.E.gate/up/down_proj; q8_0 experts, f32 router"

$b/gen_model $out/q3 --variant qwen3-moe >/dev/null
src=q3
refused() { # NAME SED-EXPRESSION MESSAGE (an edit of $out/$src)
  rm -rf $out/bad; cp -r $out/$src $out/bad
  sed "$2" $out/$src/config.json > $out/bad/config.json
  ! cmp -s $out/$src/config.json $out/bad/config.json || fail "$1: the edit changed nothing"
  rc=0; $b/convert $out/bad $out/bad.llm > /dev/null 2> $out/bad.err || rc=$?
  [ $rc != 0 ] || fail "$1: converted"
  grep -q "$3" $out/bad.err || fail "$1: the message is not '$3': $(tail -1 $out/bad.err)"
  [ ! -e $out/bad.llm ] && [ -z "$(ls $out | grep 'bad.llm.tmp')" ] || fail "$1: a file was left"
  echo "ok   refused: $1 ($(tail -1 $out/bad.err | cut -c1-110))"
}
refused "fewer experts than the checkpoint" 's/"num_experts": 8/"num_experts": 4/' "experts.4.gate_proj.weight' is not part of a qwen3_moe model"
refused "the dense layer made sparse" 's/"mlp_only_layers": \[1\]/"mlp_only_layers": []/' "model.layers.1.mlp"
refused "a sparse layer made dense" 's/"mlp_only_layers": \[1\]/"mlp_only_layers": [0, 1]/' "model.layers.0.mlp.gate.weight' is not part"
refused "more experts per token than experts" 's/"num_experts_per_tok": 2/"num_experts_per_tok": 9/' "9 per token is out of range"
refused "mlp_only_layers past the last layer" 's/"mlp_only_layers": \[1\]/"mlp_only_layers": [3]/' "mlp_only_layers\[0\] is not a layer index"

$b/gen_model $out/olmoe --variant olmoe >/dev/null
$b/convert $out/olmoe $out/olmoe.llm > /dev/null 2> $out/olmoe.err || fail "olmoe does not convert: $(tail -1 $out/olmoe.err)"
grep -q 'model.layers.1.self_attn.q_norm.weight *f32 *-> f32 *\[64\]' $out/olmoe.err || fail "olmoe's q_norm is not over all of q"
grep -q 'model.layers.1.mlp.experts.7.down_proj.weight' $out/olmoe.err || fail "olmoe's last layer has no experts"
echo "ok   olmoe: q/k norms over all heads, experts in every layer"
src=olmoe
refused "OLMoE's clip_qkv" 's/"clip_qkv": null/"clip_qkv": 8.0/' "clip_qkv 8 is not supported"
