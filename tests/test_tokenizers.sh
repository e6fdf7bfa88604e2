#!/bin/sh
# HuggingFace parity on ../shared/testdata: every line of public.jsonl,
# public_split_special.jsonl and decode_public.jsonl for each tokenizer in tokenizers/
# (encode with and without special tokens, with special tokens not parsed, decode with and
# without skipping special tokens), through build/convert --vocab-only and build/tokenize,
# from tokenizer.json and from a GGUF file of the same tokenizer.
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
# hf T LLM LABEL: the 8 comparisons of tokenizers/T's files with LLM's tokenizer
hf() {
  d=$data/tokenizers/$1; tok="$b/tokenize -m $2"; o=$out/$1$3
  $tok <$d/public.jsonl >$o.a; $cmp $d/public.jsonl ids $o.a ids "$1$3 public ids" || fail=1
  $tok --no-special <$d/public.jsonl >$o.b; $cmp $d/public.jsonl ids_nospecial $o.b ids "$1$3 public ids_nospecial" || fail=1
  $tok --decode <$d/public.jsonl >$o.c; $cmp $d/public.jsonl decoded $o.c text "$1$3 public decoded" || fail=1
  $tok --decode --skip-special <$d/public.jsonl >$o.d; $cmp $d/public.jsonl decoded_skip_special $o.d text "$1$3 public decoded_skip_special" || fail=1
  $tok --split-special <$d/public_split_special.jsonl >$o.e; $cmp $d/public_split_special.jsonl ids $o.e ids "$1$3 split_special ids" || fail=1
  $tok --split-special --no-special <$d/public_split_special.jsonl >$o.f; $cmp $d/public_split_special.jsonl ids_nospecial $o.f ids "$1$3 split_special ids_nospecial" || fail=1
  $tok --decode <$d/decode_public.jsonl >$o.g; $cmp $d/decode_public.jsonl decoded $o.g text "$1$3 decode_public decoded" || fail=1
  $tok --decode --skip-special <$d/decode_public.jsonl >$o.h; $cmp $d/decode_public.jsonl decoded_skip_special $o.h text "$1$3 decode_public decoded_skip_special" || fail=1
}
# Each tokenizer from its tokenizer.json, then as a GGUF file: the tokenizer alone as
# convert_hf_to_gguf.py --vocab-only writes it from that tokenizer.json (tests/tool_gguf_write
# --tokenizer, with llama.cpp's pre-tokenizer name for it), converted back by build/convert
# (not with LLM_TEST_QUICK=1, an emulated CPU or the sanitizers: there test_gguf_llamacpp.sh's two
# GGUF tokenizers, a SentencePiece and a byte-level one, stand for the GGUF path).
# After the name, the other names llama.cpp gives a tokenizer of the same rules
# (DeepSeek-R1-Distill-Qwen's is Qwen2's, Falcon 3's Llama 3's).
for p in "mistral -" "llama3 llama-bpe falcon3" "qwen3 qwen2 deepseek-r1-qwen" "gemma3 -" "o200k gpt-4o"; do
  set -- $p; t=$1; d=$data/tokenizers/$t; shift
  if ! $b/convert --vocab-only $d $out/$t.llm >$out/$t.log 2>&1; then echo "$t: convert failed"; cat $out/$t.log; fail=1; continue; fi
  hf $t $out/$t.llm ""
  [ "${LLM_TEST_QUICK:-0}" = 1 ] && continue
  for pre in "$@"; do
    label=-gguf; [ "$pre" = "$1" ] || label=-gguf-$pre
    if ! { $b/tests/tool_gguf_write --tokenizer $out/$t.llm $out/$t.gguf $pre && $b/convert $out/$t.gguf $out/$t-gguf.llm; } >$out/$t-gguf.log 2>&1; then
      echo "$t: GGUF round trip ($pre) failed"; cat $out/$t-gguf.log; fail=1; continue
    fi
    hf $t $out/$t-gguf.llm $label
  done
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
