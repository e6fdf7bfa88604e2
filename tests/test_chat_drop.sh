#!/bin/sh
# build/chat's --context-full drop on a long conversation: /load of 25000 exchanges (and a
# system prompt) into a 256-token context, then one message. The oldest exchanges go in time
# linear in the conversation (dropping them one render at a time took minutes), the system
# prompt stays, the newest exchanges stay in order, and no more go than needed: with one more
# exchange in front, exactly that one is dropped and the reply is the same.
b=${BUILD:-build}
set -e
out=$b/tests/chat_drop; mkdir -p $out
$b/convert models/kjv-tiny $out/kjv.llm > $out/convert.log
chat="$b/chat -m $out/kjv.llm -t 1 -v --temp 0 -n 24"
fail() { echo "FAIL: $*"; exit 1; }
n=25000

# A state to /load (any will do: llm_generate evaluates what differs), then the conversation.
printf 'In the beginning\n/save %s/long\n' $out | $chat > /dev/null 2> $out/save.err
{
  echo '{"role": "system", "content": "The words of the LORD"}'
  awk -v n=$n 'BEGIN { for (i = 1; i <= n; i++) {
    u = "And God said"; for (j = 0; j < i % 7; j++) u = u " unto Moses"
    a = "Let there be light"; for (j = 0; j < i % 11; j++) a = a ", and the LORD"
    printf "{\"role\": \"user\", \"content\": \"%s %d\"}\n{\"role\": \"assistant\", \"content\": \"%s %d\"}\n", u, i, a, i } }'
} > $out/long.jsonl
start=$(date +%s)
printf '/load %s/long\nIn the beginning\n/save %s/after\n' $out $out | $chat > $out/long.txt 2> $out/long.err
seconds=$(($(date +%s) - start))
echo "$n exchanges: $seconds s; $(grep dropped $out/long.err)"
[ $seconds -le 60 ] || fail "dropping the oldest of $n exchanges took $seconds s"
grep -q "loaded .* $((2 * n + 1)) messages" $out/long.err || fail "/load: $(cat $out/long.err)"
[ "$(grep -c 'dropped the [0-9]* oldest turns' $out/long.err)" = 1 ] || fail "expected one note about the dropped turns"
[ "$(wc -l < $out/long.txt)" = 1 ] || fail "no reply"
set -- $(sed -n 's/^chat: prompt \([0-9]*\) tokens.*/\1/p' $out/long.err)
[ $(($1 + 24)) -le 256 ] || fail "the prompt has $1 tokens: it does not fit with the reply"

# What is left: the system prompt, then the newest exchanges in order, then the new turn.
[ "$(head -n 1 $out/after.jsonl)" = "$(head -n 1 $out/long.jsonl)" ] || fail "the system prompt went"
kept=$(($(wc -l < $out/after.jsonl) - 3))
[ $kept -gt 0 ] && [ $((kept % 2)) = 0 ] || fail "kept $kept messages: not whole exchanges"
sed -n "2,$((kept + 1))p" $out/after.jsonl > $out/kept.jsonl
tail -n $kept $out/long.jsonl | cmp -s - $out/kept.jsonl || fail "the kept messages are not the newest exchanges"
echo "kept the system prompt and the newest $((kept / 2)) exchanges"

# One more exchange in front of those: it does not fit, and it alone is dropped.
{ head -n 1 $out/long.jsonl; tail -n $((kept + 2)) $out/long.jsonl; } > $out/long.jsonl.tmp
mv $out/long.jsonl.tmp $out/long.jsonl
printf '/load %s/long\nIn the beginning\n' $out | $chat > $out/more.txt 2> $out/more.err
tr -d '\r' < $out/more.err | grep -q 'dropped the oldest turn$'  || fail "one more exchange: $(grep 'context' $out/more.err)"
cmp -s $out/long.txt $out/more.txt || fail "one more exchange: the reply differs"
echo "chat drop: linear, and no more turns than needed"
