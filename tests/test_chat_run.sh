#!/bin/sh
# Scripted chats through build/chat's piped stdin on the shipped kjv-tiny model (template
# raw): the second turn evaluates only the new tokens, /reset, /save and /load, stop tokens end a turn, the
# two context-full policies, output that depends only on the seed, nothing but replies on
# stdout.
b=${BUILD:-build}
set -e
out=$b/tests/chat_run; mkdir -p $out
$b/convert models/kjv-tiny $out/kjv.llm > $out/convert.log
chat="$b/chat -m $out/kjv.llm -t 1 -v"
fail() { echo "FAIL: $*"; exit 1; }
# The numbers of chat -v's line for turn N: prompt tokens, reused, evaluated, reply tokens.
turn() {
  sed -n 's/^chat: prompt \([0-9]*\) tokens (\([0-9]*\) reused, \([0-9]*\) evaluated.*reply \([0-9]*\) tokens.*/\1 \2 \3 \4/p' "$1" |
    sed -n "$2p"
}
lines() { wc -l < "$1" | tr -d ' '; }

# Two turns: the second reuses the first turn's prompt and reply.
printf 'In the beginning\nAnd God said\n' | $chat --temp 0 -n 24 > $out/two.txt 2> $out/two.err
set -- $(turn $out/two.err 1); p1=$1; g1=$4
set -- $(turn $out/two.err 2); p2=$1; r2=$2; e2=$3
echo "turn 1: $p1 prompt tokens, $g1 reply tokens; turn 2: $p2 prompt tokens, $r2 reused, $e2 evaluated"
[ "$g1" = 24 ] || fail "turn 1 replied $g1 tokens, not -n 24"
[ $r2 -ge $((p1 + g1 - 2)) ] || fail "turn 2 reused $r2 tokens; turn 1 left $((p1 + g1 - 1)) in the cache"
[ $e2 -eq $((p2 - r2)) ] || fail "turn 2: $p2 tokens, $r2 reused, but $e2 evaluated"
[ $e2 -lt $((p2 - p1 - g1 + 3)) ] || fail "turn 2 evaluated $e2 of $p2 tokens: more than the new message"
[ "$(lines $out/two.txt)" = 2 ] || fail "stdout should hold the 2 replies only"; cat $out/two.txt
if grep -q "$(printf '\033')" $out/two.txt $out/two.err || grep -q '^>' $out/two.txt; then fail "colours or prompts without a terminal"; fi

# /reset: the same first message again gives the same reply, from the cached prompt.
printf 'In the beginning\n/help\n/reset\nIn the beginning\n' | $chat --temp 0 -n 16 > $out/reset.txt 2> $out/reset.err
[ "$(lines $out/reset.txt)" = 2 ] || fail "/reset: expected 2 replies"
[ "$(sed -n 1p $out/reset.txt)" = "$(sed -n 2p $out/reset.txt)" ] || fail "/reset: the replies differ"
set -- $(turn $out/reset.err 1); p1=$1
set -- $(turn $out/reset.err 2)
[ "$1 $2 $3" = "$p1 $((p1 - 1)) 1" ] || fail "after /reset: $1 tokens, $2 reused, $3 evaluated (want $p1, $((p1 - 1)), 1)"
grep -q '/reset' $out/reset.err || fail "/help prints the commands on stderr"

# /save after the first turn, /load in a new chat: the second turn reuses the saved tokens
# and replies as the uninterrupted chat did; a state of another model is refused.
printf 'In the beginning\n/save %s\n' $out/saved.state | $chat --temp 0 -n 24 > /dev/null 2> $out/save.err
grep -q 'saved .* 2 messages' $out/save.err || fail "/save: no message"
[ -s $out/saved.state ] && [ -s $out/saved.state.jsonl ] || fail "/save wrote no state or conversation"
printf '/load %s\nAnd God said\n' $out/saved.state | $chat --temp 0 -n 24 > $out/load.txt 2> $out/load.err
grep -q 'loaded .* 2 messages' $out/load.err || fail "/load: no message"
[ "$(cat $out/load.txt)" = "$(sed -n 2p $out/two.txt)" ] || fail "/load: the reply differs from the uninterrupted chat's"
set -- $(turn $out/load.err 1); set -- $(turn $out/two.err 2) $1 $2 $3
[ "$5 $6 $7" = "$1 $2 $3" ] || fail "/load: prompt $5, reused $6, evaluated $7; the uninterrupted chat: $1 $2 $3"
${BUILD:-build}/convert models/kjv-tiny $out/kjv-f32.llm --dtype f32 >> $out/convert.log 2>&1
printf '/load %s\n' $out/saved.state | ${BUILD:-build}/chat -m $out/kjv-f32.llm > /dev/null 2> $out/wrong.err
grep -q 'cannot load.*another model' $out/wrong.err || fail "/load of another model's state: $(cat $out/wrong.err)"

# A seed decides the sampled replies.
printf 'In the beginning\nAnd God said\n' | $chat --seed 42 -n 24 > $out/seed1.txt 2>/dev/null
printf 'In the beginning\nAnd God said\n' | $chat --seed 42 -n 24 > $out/seed2.txt 2>/dev/null
printf 'In the beginning\nAnd God said\n' | $chat --seed 43 -n 24 > $out/seed3.txt 2>/dev/null
cmp -s $out/seed1.txt $out/seed2.txt || fail "seed 42 gave different replies"
! cmp -s $out/seed1.txt $out/seed3.txt || fail "seeds 42 and 43 gave the same replies"

# The system prompt is -sys, --system-prompt or -f FILE; it reaches the prompt. -s is the
# seed, as in llama.cpp and the other programs: a system prompt given to it is refused.
printf 'In the beginning\n' > $out/system.txt
printf 'And God said\n' | $chat --temp 0 -n 8 -sys "In the beginning" > $out/sys1.txt 2> $out/sys1.err
printf 'And God said\n' | $chat --temp 0 -n 8 --system-prompt "In the beginning" > $out/sys2.txt 2>/dev/null
printf 'And God said\n' | $chat --temp 0 -n 8 -f $out/system.txt > $out/sys3.txt 2>/dev/null
printf 'And God said\n' | $chat --temp 0 -n 8 > $out/sys0.txt 2> $out/sys0.err
cmp -s $out/sys1.txt $out/sys2.txt || fail "-sys and --system-prompt differ"
cmp -s $out/sys1.txt $out/sys3.txt || fail "-f FILE and -sys with the file's text differ"
[ "$(turn $out/sys1.err 1 | cut -d' ' -f1)" -gt "$(turn $out/sys0.err 1 | cut -d' ' -f1)" ] || fail "-sys did not add a system prompt"
rc=0; $chat -s "In the beginning" < /dev/null > /dev/null 2> $out/sys-s.err || rc=$?
[ $rc = 2 ] && grep -q 'system prompt is -sys' $out/sys-s.err || fail "-s with a system prompt: status $rc, $(cat $out/sys-s.err)"

# Stop tokens: a copy of the model whose generation_config.json also ends on ","; its
# greedy replies stop where the model's own go on past a comma.
grep -q ',' $out/two.txt || fail "the greedy replies should contain a comma"
stop=$out/kjv-stop; mkdir -p $stop
for f in config.json model.safetensors tokenizer.json tokenizer_config.json; do cp models/kjv-tiny/$f $stop/; done
comma=$(grep -o '"," *: *[0-9]*' models/kjv-tiny/tokenizer.json | head -n 1 | grep -o '[0-9]*$')
printf '{"bos_token_id": 1, "eos_token_id": [2, %s]}\n' "$comma" > $stop/generation_config.json
$b/convert $stop $out/kjv-stop.llm > $out/convert-stop.log
printf 'In the beginning\nAnd God said\n' | $b/chat -m $out/kjv-stop.llm -t 1 -v --temp 0 -n 24 > $out/stop.txt 2> $out/stop.err
[ "$(lines $out/stop.txt)" = 2 ] || fail "stop tokens: expected 2 replies"
! grep -q ',' $out/stop.txt || fail "a reply went past the stop token ','"
[ "$(tr -d '\r' < $out/stop.err | grep -c 'end of turn$')" = 2 ] || fail "both turns should end on the stop token"
set -- $(turn $out/stop.err 1); [ $4 -lt 24 ] || fail "the stop token did not end turn 1"

# A full context, -c 64 and replies of up to 24 tokens. drop: the oldest turns go and every
# message is answered; stop: it says so and exits with status 3.
msgs='In the beginning\nAnd God said\nAnd Moses went up\nThe LORD is my shepherd\n'
printf "$msgs" | $chat --temp 0 -n 24 -c 64 > $out/drop.txt 2> $out/drop.err
[ "$(lines $out/drop.txt)" = 4 ] || fail "drop: expected 4 replies"
grep -q "context is full.*dropped the .*oldest turn" $out/drop.err || fail "drop: no message about the dropped turns"
for n in 1 2 3 4; do set -- $(turn $out/drop.err $n); [ $(($1 + 24)) -le 64 ] || fail "drop: turn $n has $1 prompt tokens"; done
rc=0; printf "$msgs" | $chat --temp 0 -n 24 -c 64 --context-full stop > $out/full.txt 2> $out/full.err || rc=$?
[ $rc = 3 ] || fail "stop: exit status $rc, not 3"
grep -q 'context is full.*stopping' $out/full.err || fail "stop: no message"
[ "$(lines $out/full.txt)" -lt 4 ] || fail "stop: every message was answered"
head -n 2 $out/drop.txt | cmp -s - $out/full.txt || fail "stop: the replies before the full context differ from drop's"
# A message longer than the whole context is refused; the chat goes on, and the exit status
# (1) tells a script that a message went unanswered. -c 8: the only message does not fit.
long=$(printf 'And it came to pass %.0s' 1 2 3 4 5 6 7 8 9 10 11 12)
rc=0; printf '%s\nIn the beginning\n' "$long" | $chat --temp 0 -n 24 -c 64 > $out/long.txt 2> $out/long.err || rc=$?
grep -q 'does not fit' $out/long.err || fail "a message longer than the context: no message"
[ "$(lines $out/long.txt)" = 1 ] || fail "after a refused message the chat should go on"
[ $rc = 1 ] || fail "a refused message: exit status $rc, not 1"
rc=0; printf 'In the beginning\n' | $chat --temp 0 -n 24 -c 8 > $out/c8.txt 2> $out/c8.err || rc=$?
[ $rc = 1 ] && grep -q 'does not fit' $out/c8.err || fail "-c 8: exit status $rc, $(cat $out/c8.err)"
# examples/simple.c streams one reply.
OMP_NUM_THREADS=1 $b/simple $out/kjv.llm "In the beginning" > $out/simple.txt
[ "$(wc -c < $out/simple.txt)" -gt 20 ] || fail "$b/simple wrote no reply"
echo "chat program: all scripted sessions behave"
