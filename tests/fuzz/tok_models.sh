#!/bin/sh
# tests/fuzz/tok_models.sh BUILD_DIR OUT_DIR: converts the tokenizers fuzz_tokenizer runs on
# (kjv-tiny's, each fixture in tests/data/tokenizers, and bl_llama3 with o200k's split regex,
# which llm.h's regex matcher runs, --vocab-only) with BUILD_DIR/convert, and prints their
# paths separated by commas (for LLM_FUZZ_TOKENIZERS).
b=$1; out=$2
mkdir -p "$out/o200k_regex"
llama3='(?i:'"'"'s|'"'"'t|'"'"'re|'"'"'ve|'"'"'m|'"'"'ll|'"'"'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+'
o200k='[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'"'"'s|'"'"'t|'"'"'re|'"'"'ve|'"'"'m|'"'"'ll|'"'"'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'"'"'s|'"'"'t|'"'"'re|'"'"'ve|'"'"'m|'"'"'ll|'"'"'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+'
FROM=$llama3 TO=$o200k awk '{ o = ""; while ((i = index($0, ENVIRON["FROM"])) > 0) { o = o substr($0, 1, i - 1) ENVIRON["TO"]; $0 = substr($0, i + length(ENVIRON["FROM"])) } print o $0 }' \
  <tests/data/tokenizers/bl_llama3/tokenizer.json >"$out/o200k_regex/tokenizer.json.new"
if cmp -s "$out/o200k_regex/tokenizer.json.new" tests/data/tokenizers/bl_llama3/tokenizer.json; then echo "tok_models.sh: bl_llama3 has no Llama 3 regex to replace" >&2; exit 1; fi
cmp -s "$out/o200k_regex/tokenizer.json.new" "$out/o200k_regex/tokenizer.json" || mv "$out/o200k_regex/tokenizer.json.new" "$out/o200k_regex/tokenizer.json"
rm -f "$out/o200k_regex/tokenizer.json.new"
list=""
for dir in models/kjv-tiny tests/data/tokenizers/*/ "$out/o200k_regex"; do
  name=$(basename "$dir")
  opt=--vocab-only
  if [ ! -s "$out/$name.llm" ] || [ "$b/convert" -nt "$out/$name.llm" ] || [ "$dir/tokenizer.json" -nt "$out/$name.llm" ]; then
    "$b/convert" $opt "$dir" "$out/$name.llm" >"$out/$name.log" 2>&1 || { echo "cannot convert $dir (see $out/$name.log)" >&2; exit 1; }
  fi
  list="$list${list:+,}$out/$name.llm"
done
echo "$list"
