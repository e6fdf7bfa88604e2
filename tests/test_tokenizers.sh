#!/bin/sh
# HuggingFace parity on ../shared/testdata: every line of public.jsonl,
# public_split_special.jsonl and decode_public.jsonl for each tokenizer in tokenizers/
# (encode with and without special tokens, with special tokens not parsed, decode with and
# without skipping special tokens), through build/convert --vocab-only and build/tokenize.
# Then the model directories that ship a tokenizer: kjv-tiny (HF's ids of "In the beginning",
# HF's decoding of its greedy ids, and generate -p reproducing the greedy ids), and the
# llama3 / qwen2 minis, whose tokenizer.json are the tokenizers/ ones.
b=${BUILD:-build}
data=../shared/testdata
. tests/need.sh
need_file test_tokenizers ../shared/testdata "$data/tokenizers" || exit $need_exit
out=$b/tests/tokenizers; mkdir -p $out
cmp=$b/tests/tool_jsoncmp
fail=0
for t in mistral llama3 qwen3 gemma3 o200k; do
  d=$data/tokenizers/$t
  if ! $b/convert --vocab-only $d $out/$t.llm >$out/$t.log 2>&1; then echo "$t: convert failed"; cat $out/$t.log; fail=1; continue; fi
  tok="$b/tokenize -m $out/$t.llm"
  $tok <$d/public.jsonl >$out/$t.a; $cmp $d/public.jsonl ids $out/$t.a ids "$t public ids" || fail=1
  $tok --no-special <$d/public.jsonl >$out/$t.b; $cmp $d/public.jsonl ids_nospecial $out/$t.b ids "$t public ids_nospecial" || fail=1
  $tok --decode <$d/public.jsonl >$out/$t.c; $cmp $d/public.jsonl decoded $out/$t.c text "$t public decoded" || fail=1
  $tok --decode --skip-special <$d/public.jsonl >$out/$t.d; $cmp $d/public.jsonl decoded_skip_special $out/$t.d text "$t public decoded_skip_special" || fail=1
  $tok --split-special <$d/public_split_special.jsonl >$out/$t.e; $cmp $d/public_split_special.jsonl ids $out/$t.e ids "$t split_special ids" || fail=1
  $tok --split-special --no-special <$d/public_split_special.jsonl >$out/$t.f; $cmp $d/public_split_special.jsonl ids_nospecial $out/$t.f ids "$t split_special ids_nospecial" || fail=1
  $tok --decode <$d/decode_public.jsonl >$out/$t.g; $cmp $d/decode_public.jsonl decoded $out/$t.g text "$t decode_public decoded" || fail=1
  $tok --decode --skip-special <$d/decode_public.jsonl >$out/$t.h; $cmp $d/decode_public.jsonl decoded_skip_special $out/$t.h text "$t decode_public decoded_skip_special" || fail=1
done

# kjv-tiny: ids of "In the beginning" with BOS, and the decoding of its greedy ids, from HF
g=$data/kjv-tiny-golden
if $b/convert $data/kjv-tiny-hf $out/kjv.llm >$out/kjv.log 2>&1; then
  printf '{"text": "In the beginning"}\n' | $b/tokenize -m $out/kjv.llm | tr -d '{}[],"a-z:\r' | tr -s ' ' | sed 's/^ //' >$out/kjv_prompt.txt
  if cmp -s $out/kjv_prompt.txt $g/prompt_ids.txt; then echo "kjv-tiny: \"In the beginning\" -> $(cat $out/kjv_prompt.txt) as HF"
  else echo "kjv-tiny: \"In the beginning\" -> $(cat $out/kjv_prompt.txt), HF: $(cat $g/prompt_ids.txt)"; fail=1; fi
  echo "{\"ids\": [$(sed 's/ /, /g' $g/greedy_ids.txt)]}" | $b/tokenize -m $out/kjv.llm --decode >$out/kjv_text.jsonl
  printf '{"text": "%s"}\n' "$(cat $g/greedy_text.txt)" >$out/kjv_expected.jsonl
  $cmp $out/kjv_expected.jsonl text $out/kjv_text.jsonl text "kjv-tiny decode of the greedy ids" || fail=1
  $b/generate -m $out/kjv.llm -p "In the beginning" -n 64 --print-ids >$out/kjv_greedy.txt 2>/dev/null
  if cmp -s $out/kjv_greedy.txt $g/greedy_ids.txt; then echo "kjv-tiny: generate -p \"In the beginning\" gives the 69 golden ids"
  else echo "kjv-tiny: generate -p differs from greedy_ids.txt"; fail=1; fi
else
  echo "kjv-tiny: convert failed"; cat $out/kjv.log; fail=1
fi

# the minis carry the tokenizers/ files: the converted model must tokenize as they do
for p in "llama3-mini-hf llama3" "qwen2-mini-hf qwen3"; do
  set -- $p
  if ! $b/convert $data/$1 $out/$1.llm >$out/$1.log 2>&1; then echo "$1: convert failed"; cat $out/$1.log; fail=1; continue; fi
  $b/tokenize -m $out/$1.llm <$data/tokenizers/$2/public.jsonl >$out/$1.ids
  $cmp $data/tokenizers/$2/public.jsonl ids $out/$1.ids ids "$1 (its tokenizer) public ids" || fail=1
done
exit $fail
