#!/bin/sh
# tests/valgrind.sh BUILD_DIR: end-to-end runs under valgrind memcheck: convert the shipped
# kjv-tiny model, generate from prompt ids, and chat one turn with the simple example. Any
# memcheck error or leaked byte fails.
set -e
b=${1:-build/valgrind}
if ! command -v valgrind >/dev/null 2>&1; then echo "valgrind is not installed (.ci/run installs it)"; exit 1; fi
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"
out=$b/vg; mkdir -p $out
$vg $b/convert models/kjv-tiny $out/kjv.llm >/dev/null 2>$out/convert.log || { cat $out/convert.log; exit 1; }
$vg $b/generate -m $out/kjv.llm --ids-file tests/data/kjv-tiny-golden/prompt_ids.txt -n 8 --print-ids > $out/ids.txt
# The same ids as the golden prefix: the valgrind build computes the same thing.
n=$(wc -w < $out/ids.txt)
if [ "$(cat $out/ids.txt)" != "$(tr ' ' '\n' < tests/data/kjv-tiny-golden/greedy_ids.txt | head -n $n | tr '\n' ' ' | sed 's/ $//')" ]; then
  echo "valgrind run: ids differ from the golden"; cat $out/ids.txt; exit 1
fi
# The simple example: text in, chat template, tokenizer, sampler, streamed text out.
$vg $b/simple $out/kjv.llm "In the beginning" > $out/simple.txt
[ "$(wc -c < $out/simple.txt)" -gt 20 ] || { echo "valgrind run: simple wrote no reply"; exit 1; }
echo "valgrind memcheck: convert, generate ($n ids) and simple (a chat reply) with no errors and no leaks"
