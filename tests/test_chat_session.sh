#!/bin/sh
# build/chat sessions that go wrong: two runs started together sample differently (no
# --seed), a read error is not the end of the input, /save and /load without FILE say so, a
# failed /load changes neither the conversation nor the context, a /save path too long for
# its .jsonl fails without touching the state, and a status line starts a line of its own
# when stdout and stderr share a file.
b=${BUILD:-build}
# A directory where a file belongs: POSIX opens it and fails the read; Windows refuses to open it.
dir_verb=read; [ -e $b/chat.exe ] && dir_verb=open
set -e
out=$b/tests/chat_session; rm -rf $out; mkdir -p $out
$b/convert models/kjv-tiny $out/kjv.llm > $out/convert.log
chat="$b/chat -m $out/kjv.llm -t 1"
fail() { echo "FAIL: $*"; exit 1; }
turn() { sed -n 's/^chat: prompt \([0-9]*\) tokens (\([0-9]*\) reused, \([0-9]*\) evaluated.*/\1 \2 \3/p' "$1" | sed -n "$2p"; }

# Without --seed, runs started in the same second reply differently.
printf 'In the beginning\n' > $out/msg.txt
$chat -n 64 --temp 1 < $out/msg.txt > $out/r1.txt 2> $out/r1.err & p1=$!
$chat -n 64 --temp 1 < $out/msg.txt > $out/r2.txt 2> $out/r2.err & p2=$!
wait $p1; wait $p2
[ "$(wc -c < $out/r1.txt)" -gt 20 ] || fail "no reply: $(cat $out/r1.err)"
! cmp -s $out/r1.txt $out/r2.txt || fail "two runs without --seed gave the same reply: $(cat $out/r1.txt)"
echo "ok   random seeds differ"

# A read error (stdin a directory) is an error, not an empty input.
for flags in --print-prompt ""; do
  rc=0; $chat $flags < $out > $out/dir.txt 2> $out/dir.err || rc=$?
  [ $rc = 1 ] && grep -q 'cannot read stdin: ' $out/dir.err || fail "chat $flags < DIR: status $rc, $(cat $out/dir.err)"
  [ ! -s $out/dir.txt ] || fail "chat $flags < DIR: wrote to stdout"
done
echo "ok   read errors"

# /save and /load need a FILE.
printf '/save\n/save \n/load\n' | $chat > /dev/null 2> $out/nofile.err
[ "$(grep -c '/save needs a FILE' $out/nofile.err)" = 2 ] && grep -q '/load needs a FILE' $out/nofile.err &&
  ! grep -q 'unknown command' $out/nofile.err || fail "/save, /load without FILE: $(cat $out/nofile.err)"
echo "ok   /save and /load without FILE"

# A failed /load leaves the chat as it was: a state whose .jsonl is a directory, and a
# broken state beside a good conversation. The second turn then goes as in a chat without
# them: the same reply, prompt and reuse.
chat="$chat -v --temp 0 -n 24"
printf 'In the beginning\nAnd God said\n' | $chat > $out/plain.txt 2> $out/plain.err
printf 'In the beginning\n/save %s/a\n' $out | $chat > /dev/null 2> $out/a.err
cp $out/a $out/dir-jsonl && mkdir $out/dir-jsonl.jsonl
head -c 100 $out/a > $out/broken && printf '{"role": "user", "content": "Moses"}\n' > $out/broken.jsonl
printf 'In the beginning\n/load %s/dir-jsonl\n/load %s/broken\nAnd God said\n' $out $out | $chat > $out/failed.txt 2> $out/failed.err
grep -q "cannot $dir_verb $out/dir-jsonl.jsonl: " $out/failed.err || fail "/load with a directory for FILE.jsonl: $(cat $out/failed.err)"
grep -q "cannot load: " $out/failed.err || fail "/load of a broken state: $(cat $out/failed.err)"
! grep -q 'loaded' $out/failed.err || fail "a failed /load says it loaded"
cmp -s $out/plain.txt $out/failed.txt || fail "after a failed /load the replies differ"
[ "$(turn $out/failed.err 2)" = "$(turn $out/plain.err 2)" ] || fail "after a failed /load: turn 2 $(turn $out/failed.err 2), not $(turn $out/plain.err 2)"
echo "ok   a failed /load changes nothing"

# A 4095-byte path: FILE.jsonl does not fit in a path, so nothing is saved (the conversation
# was written over the state file when the name was cut to fit a buffer).
p=$out/deep
while [ $((4095 - ${#p})) -gt 250 ]; do p=$p/$(printf '%0200d' 0 | tr 0 d); done
mkdir -p $p
f=$p/$(printf "%0$((4095 - ${#p} - 1))d" 0 | tr 0 s)
[ ${#f} = 4095 ] || fail "test: the path has ${#f} bytes"
printf 'In the beginning\n/save %s\n' "$f" | $chat > /dev/null 2> $out/deep.err
grep -q 'cannot create .*\.jsonl\.tmp: ' $out/deep.err || fail "/save of a 4095-byte path: $(cut -c1-200 $out/deep.err)"
! grep -q '^chat: saved' $out/deep.err || fail "/save of a 4095-byte path says it saved"
[ ! -e "$f" ] || ! grep -q '"role"' "$f" || fail "/save wrote the conversation over the state"
echo "ok   a path too long for FILE.jsonl"

# stdin a terminal, stdout and stderr one file: a note after the prompt "> " starts its own
# line. (Where script(1) makes a terminal, and not for a cross build run through qemu or
# wine, whose terminal is not the one script makes.)
if command -v script > /dev/null 2>&1 && script -qc true /dev/null > /dev/null 2>&1 && [ "$(head -c 2 $b/chat)" != '#!' ]; then
  printf '/save\nIn the beginning\n/quit\n' | script -qc "$chat > $out/tty.txt 2>&1" /dev/null > /dev/null
  grep -q '^chat: /save needs a FILE' $out/tty.txt || fail "terminal: a note continues a line: $(cat $out/tty.txt)"
  ! grep 'chat:' $out/tty.txt | grep -v '^chat:' > /dev/null || fail "terminal: a note continues a line: $(cat $out/tty.txt)"
  echo "ok   notes on lines of their own"
fi
echo "chat sessions: all cases behave"
