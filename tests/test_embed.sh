#!/bin/sh
# Embedding models through the converter and examples/embed.c. gen_model's qwen3-embedding
# variant is saved as AutoModel saves an embedding model: the base model's tensor names (no
# "model."), no LM head, and sentence-transformers' modules.json (last-token pooling, then
# Normalize). The values llm_embed computes are checked against the double-precision
# reference for every variant in tests/test_reference.c; here: the file takes the modules' pooling and
# normalization as its defaults (also through a change of type), an untied base model becomes
# a file without a head (llm_eval refuses it, its embeddings are those of the tied one), and
# modules.json's pooling modes and modules llm_embed does not have leave the file without a
# pooling, with a note; a broken modules.json or pooling config is an error. The prompts of
# config_sentence_transformers.json go before the texts as sentence-transformers puts them.
set -e
b=${BUILD:-build}
out=$b/tests/embed; rm -rf $out; mkdir -p $out
fail() { echo "FAIL: $*"; exit 1; }
ids="3 17 5 99 42 7 1 64 23 11"

$b/gen_model $out/emb --variant qwen3-embedding > /dev/null
$b/convert $out/emb $out/emb.llm > /dev/null 2> $out/emb.err || fail "the base model's checkpoint does not convert: $(cat $out/emb.err)"
vec() { f=$1; shift; $b/embed -m $f --ids --vectors "$@" "$ids"; }
vec $out/emb.llm > $out/default.txt
vec $out/emb.llm --pooling last --normalize > $out/last-norm.txt
vec $out/emb.llm --pooling mean --no-normalize > $out/mean.txt
cmp -s $out/default.txt $out/last-norm.txt || fail "the file's pooling is not modules.json's (last token, normalized)"
! cmp -s $out/default.txt $out/mean.txt || fail "mean pooling gives the last token's vector"
awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i * $i; if (s < 0.99999 || s > 1.00001) exit 1 }' $out/default.txt || fail "the normalized vector's length is not 1"
echo "ok   base model names, modules.json: last-token pooling and Normalize are the file's defaults"

$b/convert $out/emb.llm $out/emb-q8.llm --dtype q8_0 > /dev/null 2>&1
vec $out/emb-q8.llm > $out/q8-default.txt
vec $out/emb-q8.llm --pooling last --normalize > $out/q8-last-norm.txt
cmp -s $out/q8-default.txt $out/q8-last-norm.txt || fail "--dtype q8_0 lost the pooling"
echo "ok   a change of type keeps the pooling"

# Untied: no LM head in the checkpoint, none in the file.
mkdir -p $out/untied && cp -r $out/emb/* $out/untied/
sed 's/"tie_word_embeddings": true/"tie_word_embeddings": false/' $out/emb/config.json > $out/untied/config.json
grep -q '"tie_word_embeddings": false' $out/untied/config.json || fail "the config edit did not apply"
$b/convert $out/untied $out/untied.llm > /dev/null 2> $out/untied.err || fail "the untied base model does not convert: $(cat $out/untied.err)"
grep -q 'without an LM head' $out/untied.err || fail "no note that the file has no LM head: $(cat $out/untied.err)"
! grep -q 'without an LM head' $out/emb.err || fail "the tied model got the note too"
vec $out/untied.llm > $out/untied.txt
cmp -s $out/untied.txt $out/default.txt || fail "the untied file's embeddings are not the tied one's"
rc=0; $b/generate -m $out/untied.llm --ids "$ids" -n 1 > $out/gen.out 2> $out/gen.err || rc=$?
[ $rc != 0 ] && grep -q 'no LM head' $out/gen.err || fail "generate on a file without a head: status $rc, $(cat $out/gen.err)"
rc=0; $b/bench -m $out/untied.llm -p 8 -n 2 -r 1 > $out/bench.out 2> $out/bench.err || rc=$?
[ $rc != 0 ] && grep -q 'no LM head' $out/bench.err || fail "bench on a file without a head: status $rc, $(cat $out/bench.err)"
echo "ok   an untied base model: a file without a head, its embeddings the tied one's, generate and bench refuse it"

# modules.json cases: write_pool MODE and write_modules EXTRA change the copy in $out/m.
write_pool() {
  printf '{"pooling_mode_cls_token": %s, "pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": %s, "pooling_mode_lasttoken": false}\n' \
    "$1" "$2" > $out/m/1_Pooling/config.json
}
mkdir -p $out/m && cp -r $out/emb/* $out/m/
write_pool true false
$b/convert $out/m $out/m.llm > /dev/null 2>&1 || fail "cls pooling does not convert"
vec $out/m.llm > $out/cls.txt
vec $out/m.llm --pooling first --normalize > $out/first.txt
cmp -s $out/cls.txt $out/first.txt || fail "cls_token pooling is not the first token's"
echo "ok   pooling_mode_cls_token: the first token"

write_pool false true
$b/convert $out/m $out/m.llm > /dev/null 2> $out/max.err || fail "max pooling: the conversion fails: $(cat $out/max.err)"
grep -q 'note: modules.json: pooling_mode_max_tokens is not run by llm_embed' $out/max.err || fail "max pooling: no note: $(cat $out/max.err)"
vec $out/m.llm > $out/max.txt
cmp -s $out/max.txt $out/mean.txt || fail "max pooling: the file's default is not the plain mean"
cp $out/emb/1_Pooling/config.json $out/m/1_Pooling/config.json
sed 's|"sentence_transformers.models.Normalize"|"sentence_transformers.models.Dense"|' $out/emb/modules.json > $out/m/modules.json
$b/convert $out/m $out/m.llm > /dev/null 2> $out/dense.err || fail "a Dense module: the conversion fails: $(cat $out/dense.err)"
grep -q 'Dense is not run by llm_embed' $out/dense.err || fail "a Dense module: no note: $(cat $out/dense.err)"
vec $out/m.llm > $out/dense.txt
cmp -s $out/dense.txt $out/mean.txt || fail "a Dense module: the file names a pooling"
echo "ok   a pooling mode or a module llm_embed lacks: a note, and the file names no pooling"

echo '{"not": "a list"}' > $out/m/modules.json
rc=0; $b/convert $out/m $out/m.llm > /dev/null 2> $out/bad.err || rc=$?
[ $rc != 0 ] && grep -q 'modules.json: not a JSON array' $out/bad.err || fail "a modules.json that is not a list: status $rc, $(cat $out/bad.err)"
cp $out/emb/modules.json $out/m/modules.json
rm $out/m/1_Pooling/config.json
rc=0; $b/convert $out/m $out/m.llm > /dev/null 2> $out/nopool.err || rc=$?
[ $rc != 0 ] && grep -q '1_Pooling/config.json' $out/nopool.err || fail "no pooling config: status $rc, $(cat $out/nopool.err)"
echo "ok   a broken modules.json or a missing pooling config fails, naming the file"

# A GGUF of the embedding model (as tests/tool_gguf_write.c writes convert_hf_to_gguf.py's
# layout, with pooling_type 3): the import takes the pooling (GGUF has no Normalize).
$b/tests/tool_gguf_write qwen3 $out/emb.llm $out/emb.gguf > /dev/null || fail "tool_gguf_write"
$b/convert $out/emb.gguf $out/emb-gguf.llm > /dev/null 2>&1 || fail "the GGUF does not convert"
vec $out/emb-gguf.llm > $out/gguf-default.txt
vec $out/emb.llm --pooling last --no-normalize > $out/last.txt
cmp -s $out/gguf-default.txt $out/last.txt || fail "the GGUF's pooling_type 3 is not last-token pooling"
echo "ok   a GGUF's pooling_type: last-token pooling, the same vectors"

# sentence-transformers' prompts (config_sentence_transformers.json) on the built-in model:
# the default one goes before every text; another by --prompt-name; none by name is an error.
mkdir -p $out/kp && cp models/kjv-tiny/* $out/kp/
printf '{"prompts": {"query": "And God said, ", "document": ""}, "default_prompt_name": "query"}\n' > $out/kp/config_sentence_transformers.json
$b/convert $out/kp $out/kp.llm > /dev/null 2>&1 || fail "the prompts do not convert"
$b/convert models/kjv-tiny $out/kjv.llm > /dev/null 2>&1
text="Let there be light"
$b/embed -m $out/kp.llm --vectors "$text" > $out/p-default.txt
$b/embed -m $out/kjv.llm --vectors --prompt "And God said, " "$text" > $out/p-literal.txt
$b/embed -m $out/kjv.llm --vectors "And God said, $text" > $out/p-joined.txt
$b/embed -m $out/kp.llm --vectors --prompt-name document "$text" > $out/p-document.txt
$b/embed -m $out/kjv.llm --vectors "$text" > $out/p-none.txt
cmp -s $out/p-default.txt $out/p-literal.txt && cmp -s $out/p-default.txt $out/p-joined.txt || fail "the default prompt is not put before the text"
cmp -s $out/p-document.txt $out/p-none.txt || fail "--prompt-name document (empty) changes the text"
! cmp -s $out/p-default.txt $out/p-none.txt || fail "the prompt changes nothing"
rc=0; $b/embed -m $out/kp.llm --prompt-name passage "$text" > /dev/null 2> $out/p-missing.err || rc=$?
[ $rc = 2 ] && grep -q "no prompt 'passage'" $out/p-missing.err || fail "an unknown prompt name: status $rc, $(cat $out/p-missing.err)"
printf '{"prompts": {"query": "q: "}, "default_prompt_name": "passage"}\n' > $out/kp/config_sentence_transformers.json
rc=0; $b/convert $out/kp $out/kp.llm > /dev/null 2> $out/p-bad.err || rc=$?
[ $rc != 0 ] && grep -q 'default_prompt_name is not one of the prompts' $out/p-bad.err || fail "a default prompt that is not one: status $rc, $(cat $out/p-bad.err)"
echo "ok   sentence-transformers' prompts: the default one, one by name, a literal one, an unknown one refused"
