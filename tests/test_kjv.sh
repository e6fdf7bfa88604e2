#!/bin/sh
# The built-in model reproduces its golden greedy continuation token for token.
set -e
b=${BUILD:-build}
out=$b/tests/kjv; mkdir -p $out
$b/convert models/kjv-tiny $out/kjv.llm >/dev/null
g=tests/data/kjv-tiny-golden
$b/generate -m $out/kjv.llm --ids-file $g/prompt_ids.txt -n 64 --print-ids > $out/ids.txt
if ! cmp -s $out/ids.txt $g/greedy_ids.txt; then
  echo "kjv-tiny greedy ids differ from the golden:"; cat $out/ids.txt; cat $g/greedy_ids.txt; exit 1
fi
echo "kjv-tiny: 64 greedy tokens match the golden"
