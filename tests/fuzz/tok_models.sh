#!/bin/sh
# tests/fuzz/tok_models.sh BUILD_DIR OUT_DIR: converts the tokenizers fuzz_tokenizer runs on
# (kjv-tiny's, and each fixture in tests/data/tokenizers, --vocab-only) with BUILD_DIR/convert,
# and prints their paths separated by commas (for LLM_FUZZ_TOKENIZERS).
b=$1; out=$2
mkdir -p "$out"
list=""
for dir in models/kjv-tiny tests/data/tokenizers/*/; do
  name=$(basename "$dir")
  opt=--vocab-only
  if [ ! -s "$out/$name.llm" ] || [ "$b/convert" -nt "$out/$name.llm" ]; then
    "$b/convert" $opt "$dir" "$out/$name.llm" >"$out/$name.log" 2>&1 || { echo "cannot convert $dir (see $out/$name.log)" >&2; exit 1; }
  fi
  list="$list${list:+,}$out/$name.llm"
done
echo "$list"
