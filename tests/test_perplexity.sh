#!/bin/sh
# build/perplexity on the shipped kjv-tiny model: KJV text has a finite, sane perplexity (far
# below the 2048-token vocabulary, and below the same words shuffled); every text token is
# scored once; evaluating a token at a time gives the same numbers as in batches; a model
# against itself has KL 0 and 100% top-1 agreement, against its f16 conversion a small KL
# that is not 0, and q8_0 then q4_0 move further away; bad arguments fail with a message.
# With LLM_TEST_QUICK=1 (emulated CPUs) the same checks run on windows of 64 tokens, and the
# KL ones on one window.
set -e
b=${BUILD:-build}
# A directory where a file belongs: POSIX opens it and fails the read; Windows refuses to open it.
dir_verb=read; [ -e $b/perplexity.exe ] && dir_verb=open
out=$b/tests/perplexity; mkdir -p $out
fail() { echo "FAIL: $*"; exit 1; }
ppl=$b/perplexity
$b/convert models/kjv-tiny $out/kjv.llm > $out/convert.log 2>&1
for t in f16 q8_0 q4_0; do $b/convert models/kjv-tiny $out/kjv-$t.llm --dtype $t >> $out/convert.log 2>&1; done
text=tests/data/text/genesis1.txt
value() { sed -n "s/^$1: \([^ ]*\) .*/\1/p" "$2"; }
c=128; kc=2
if [ "${LLM_TEST_QUICK:-0}" = 1 ]; then c=64; kc=1; fi

$ppl -m $out/kjv.llm -f $text -c $c --chunks 3 -t 1 > $out/ppl.txt 2> $out/ppl.err
cat $out/ppl.txt
n=$((3 * (c - 1)))
grep -q "^tokens: $n scored in 3 windows of up to $c tokens" $out/ppl.txt || fail "3 windows of BOS + $((c - 1)) tokens should score $n"
p=$(value ppl $out/ppl.txt)
awk -v p="$p" 'BEGIN { exit !(p > 1 && p < 100) }' || fail "perplexity $p of KJV text is not sane"
# the same words in reverse order on each line
awk '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " " : "\n") }' $text > $out/shuffled.txt
$ppl -m $out/kjv.llm -f $out/shuffled.txt -c $c --chunks 3 -t 1 > $out/shuffled.ppl 2>/dev/null
q=$(value ppl $out/shuffled.ppl)
echo "reversed words: ppl $q"
awk -v p="$p" -v q="$q" 'BEGIN { exit !(q > 2 * p) }' || fail "reversed words ($q) should be far less likely than the text ($p)"

# one token per call: the same figures
$ppl -m $out/kjv.llm -f $text -c $c --chunks 3 -t 1 -b 1 > $out/ppl-b1.txt 2>/dev/null
cmp -s $out/ppl.txt $out/ppl-b1.txt || fail "-b 1 gives other numbers: $(cat $out/ppl-b1.txt)"


# KL: against itself, and the f16 conversion against the stored bf16 weights
$ppl -m $out/kjv.llm -f $text -c $c --chunks $kc -t 1 --kl-base $out/kjv.llm 2>/dev/null | tr -d '\r' > $out/self.txt  # Windows: \r\n
cat $out/self.txt
grep -q '^kl: 0 +/- 0$' $out/self.txt || fail "KL of a model against itself is not 0"
grep -q '^top1: 100.0000 +/- 0.0000 %$' $out/self.txt || fail "top-1 agreement with itself is not 100%"
$ppl -m $out/kjv-f16.llm -f $text -c $c --chunks $kc -t 1 --kl-base $out/kjv.llm > $out/f16.txt 2>/dev/null
cat $out/f16.txt
kl=$(value kl $out/f16.txt)
awk -v k="$kl" 'BEGIN { exit !(k > 0 && k < 1e-6) }' || fail "KL of the f16 conversion ($kl) should be small but not 0"
top=$(value top1 $out/f16.txt)
awk -v t="$top" 'BEGIN { exit !(t > 99) }' || fail "top-1 agreement of the f16 conversion is $top%"
# quantized: each step down in bits moves the distributions further from the base
for t in q8_0 q4_0; do
  $ppl -m $out/kjv-$t.llm -f $text -c $c --chunks $kc -t 1 --kl-base $out/kjv.llm > $out/$t.txt 2>/dev/null
  echo "$t: $(grep -e '^kl' -e '^top1' $out/$t.txt | tr '\n' ' ')"
done
k8=$(value kl $out/q8_0.txt); k4=$(value kl $out/q4_0.txt); t4=$(value top1 $out/q4_0.txt)
awk -v a="$kl" -v b="$k8" -v c="$k4" 'BEGIN { exit !(a < b && b < c && c < 0.1) }' || fail "KL should grow f16 < q8_0 < q4_0 < 0.1: $kl $k8 $k4"
awk -v t="$t4" 'BEGIN { exit !(t < 100 && t > 80) }' || fail "q4_0 top-1 agreement $t4%"

# bad arguments
rc=0; $ppl -m $out/kjv.llm > /dev/null 2> $out/err.txt || rc=$?
[ $rc = 2 ] && grep -q usage $out/err.txt || fail "no -f: status $rc"
rc=0; $ppl -m $out/kjv.llm -f $out/missing.txt > /dev/null 2> $out/err.txt || rc=$?
[ $rc = 1 ] && grep -q "cannot open $out/missing.txt: " $out/err.txt || fail "a missing text: status $rc"
rc=0; $ppl -m $out/kjv.llm -f $out > /dev/null 2> $out/err.txt || rc=$?
[ $rc = 1 ] && grep -q "cannot $dir_verb $out: " $out/err.txt || fail "a directory as the text: status $rc: $(cat $out/err.txt)"
# past the trained positions: it runs, with one warning (as llama.cpp does)
rc=0; $ppl -m $out/kjv.llm -f $text -c 300 --chunks 1 -t 1 > /dev/null 2> $out/err.txt || rc=$?
[ $rc = 0 ] && [ "$(grep -c "warning: .*256" $out/err.txt)" = 1 ] || fail "-c past the model's positions: status $rc: $(cat $out/err.txt)"
if [ -d ../shared/testdata/stories260K-hf ]; then
  $b/convert ../shared/testdata/stories260K-hf $out/stories.llm >> $out/convert.log 2>&1
  rc=0; $ppl -m $out/kjv.llm -f $text --kl-base $out/stories.llm > /dev/null 2> $out/err.txt || rc=$?
  [ $rc = 1 ] && grep -q 'do not share a vocabulary' $out/err.txt || fail "another vocabulary: status $rc"
fi
echo "perplexity: all checks passed"
