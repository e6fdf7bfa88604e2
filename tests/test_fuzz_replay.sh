#!/bin/sh
# Replays the fuzz seeds (tests/fuzz/corpus/NAME) and every crash the fuzzers found
# (tests/fuzz/regress/NAME, fixed since) through each target built as a plain program.
set -e
b=${BUILD:-build}
n=0
for dir in tests/fuzz/corpus/*/ tests/fuzz/regress/*/; do
  [ -d "$dir" ] || continue
  name=$(basename "$dir")
  files=$(ls "$dir" | sed "s|^|$dir|")
  [ -n "$files" ] || continue
  if [ ! -e "$b/tests/$name" ]; then echo "no replay program $b/tests/$name"; exit 1; fi
  if [ "$name" = fuzz_json ]; then mkdir -p $b/tests/fuzz_replay/json; LLM_FUZZ_TMPDIR=$b/tests/fuzz_replay/json; export LLM_FUZZ_TMPDIR; fi
  if [ "$name" = fuzz_tokenizer ] && [ -z "$LLM_FUZZ_TOKENIZERS" ]; then
    LLM_FUZZ_TOKENIZERS=$(sh tests/fuzz/tok_models.sh $b $b/tests/fuzz_replay/tok); export LLM_FUZZ_TOKENIZERS
  fi
  printf "%s: " "$dir"; "$b/tests/$name" $files
  n=$((n + 1))
done
[ $n -gt 0 ] || { echo "no fuzz corpora found"; exit 1; }
