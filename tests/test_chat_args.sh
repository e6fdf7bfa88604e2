#!/bin/sh
# build/chat's command line: every flag it documents works (-f, -b), an unknown flag or a
# stray word is named as such wherever it stands, bad numbers exit 2 with a message, each
# flag is listed once in --help (-s is the seed), and a file that will not open or a context
# beyond the model's trained positions is one line on stderr.
b=${BUILD:-build}
# A directory where a file belongs: POSIX opens it and fails the read; Windows refuses to open it.
dir_verb=read; [ -e $b/chat.exe ] && dir_verb=open
set -e
out=$b/tests/chat_args; mkdir -p $out
$b/convert models/kjv-tiny $out/kjv.llm > $out/convert.log
m=$out/kjv.llm
chat="$b/chat -m $m -t 1"
fail() { echo "FAIL: $*"; exit 1; }
# bad ARGS... : exit status 2, nothing on stdout, and a message on stderr matching $want.
bad() {
  rc=0; $chat "$@" < /dev/null > $out/bad.out 2> $out/bad.err || rc=$?
  [ $rc = 2 ] || fail "chat $*: exit status $rc, not 2: $(cat $out/bad.err)"
  [ ! -s $out/bad.out ] || fail "chat $*: wrote to stdout"
  grep -q -- "$want" $out/bad.err || fail "chat $*: '$(cat $out/bad.err)' does not say '$want'"
  ! grep -q 'needs a value' $out/bad.err || [ "$needs" = 1 ] || fail "chat $*: $(cat $out/bad.err)"
}

# An unknown flag is unknown even when last (not "needs a value"), and takes nothing with it.
want="unknown option '--color'"; bad --color
want="unknown option '-i'"; bad -i
want="unknown option '-p' (see chat --help)"; bad -p x
want="did you mean '--temp'"; bad --tmep 0.5
want="unexpected argument '$m' (options start with '-'; the model is -m FILE)"; bad $m
needs=1; want="-m needs a value"; bad -m
want="-n needs a value"; bad -n; needs=0

# Numbers are whole arguments in range.
for f in -n -c -t -b --temp --seed -s --top-k; do want="$f: 'abc' is not a"; [ $f = -s ] && want="--seed: 'abc'"; bad $f abc; done
want="-n: 1x is\|-n: '1x' is"; bad -n 1x
want="-c: 99999999999 is out of range"; bad -c 99999999999
want="-c: '-5' is\|-c: -5 is out of range"; bad -c -5
want="neither drop nor stop"; bad --context-full maybe
want="system prompt is -sys"; bad -s "You are a helpful assistant"
printf 'In the beginning\n' > $out/system.txt
want="-sys and -f"; bad -sys x -f $out/system.txt

# --help: each flag once; -s is the seed and the system prompt -sys.
$chat --help > $out/help.txt
dup=$(grep -o -- '^  -[-a-z0-9.]*\(, -[-a-z0-9.]*\)*' $out/help.txt | tr ',' '\n' | tr -d ' ' | sort | uniq -d)
[ -z "$dup" ] || fail "--help lists $dup more than once"
grep -q -- '^  -s, --seed' $out/help.txt || fail "--help: -s is not the seed"
grep -q -- '^  -sys TEXT .*system prompt' $out/help.txt || fail "--help: no -sys"
grep -q -- '^  -f FILE .*system prompt' $out/help.txt || fail "--help: no -f"
grep -q -- '^  -b N ' $out/help.txt || fail "--help: no -b"
echo "ok   unknown flags, stray words, bad numbers, --help"

# -s and --seed are the same seed; -b (the prompt's batch) does not change a greedy reply.
msgs='In the beginning\nAnd God said\n'
printf "$msgs" | $chat -s 5 -n 16 > $out/s5.txt 2>/dev/null
printf "$msgs" | $chat --seed 5 -n 16 > $out/seed5.txt 2>/dev/null
cmp -s $out/s5.txt $out/seed5.txt || fail "-s 5 and --seed 5 differ"
printf "$msgs" | $chat --temp 0 -n 16 > $out/b0.txt 2>/dev/null
printf "$msgs" | $chat --temp 0 -n 16 -b 1 > $out/b1.txt 2>/dev/null
printf "$msgs" | $chat --temp 0 -n 16 --batch-size 3 > $out/b3.txt 2>/dev/null
[ "$(wc -l < $out/b0.txt)" = 2 ] || fail "no replies"
cmp -s $out/b0.txt $out/b1.txt && cmp -s $out/b0.txt $out/b3.txt || fail "-b changed the greedy replies"
# -f FILE is the system prompt (its final newline dropped): the same reply as -sys TEXT.
printf 'And God said\n' | $chat --temp 0 -n 16 -sys "In the beginning" > $out/sys.txt 2>/dev/null
printf 'And God said\n' | $chat --temp 0 -n 16 --file $out/system.txt > $out/file.txt 2>/dev/null
printf 'And God said\n' | $chat --temp 0 -n 16 > $out/nosys.txt 2>/dev/null
cmp -s $out/sys.txt $out/file.txt || fail "-f FILE and -sys differ"
! cmp -s $out/sys.txt $out/nosys.txt || fail "-sys made no difference"
echo "ok   -s, -b, -f"

# A file that will not open or read: one line, with the system's reason.
one_line() {
  rc=0; $b/chat "$@" < /dev/null > $out/err.out 2> $out/err.txt || rc=$?
  grep -v 'warning: built' $out/err.txt > $out/err.lines || true
  [ $rc = 1 ] && [ "$(wc -l < $out/err.lines)" = 1 ] && grep -q "$want" $out/err.lines ||
    fail "chat $*: status $rc, $(cat $out/err.txt)"
}
want="cannot open $out/missing.llm: ."; one_line -m $out/missing.llm
want="cannot $dir_verb $out: ."; one_line -m $out
want="cannot open $out/missing.txt: ."; one_line -m $m -f $out/missing.txt
want="cannot $dir_verb $out: ."; one_line -m $m -f $out
# A context past the trained positions (kjv-tiny: 256) works, with one warning.
printf 'In the beginning\n' | $chat -c 512 -n 4 > $out/c512.txt 2> $out/c512.err
[ "$(grep -c 'chat: warning: n_ctx 512 .*256.*quality may degrade' $out/c512.err)" = 1 ] || fail "-c 512: $(cat $out/c512.err)"
[ "$(wc -l < $out/c512.txt)" = 1 ] || fail "-c 512: no reply"
echo "chat command line: all cases behave"
