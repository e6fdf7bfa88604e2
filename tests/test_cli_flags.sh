#!/bin/sh
# The command line of generate, perplexity, tokenize, bench, bench_tokenize, npc and simple:
# an unknown flag, a bare word and a bad number each fail with exit status 2 and one line on
# stderr that names them (a near flag suggested); every flag --help lists is taken, and
# listed once; -f and -b work in generate; --ids and no prompt print text; a context beyond
# the trained positions warns once; a file that will not open or read fails with the
# system's reason in one line; status lines start on a line of their own; bench names its
# kernels; an unoptimised build says so.
set -e
b=${BUILD:-build}
out=$b/tests/cli_flags; mkdir -p $out
fail() { echo "FAIL: $*"; exit 1; }
$b/convert models/kjv-tiny $out/kjv.llm > /dev/null 2>&1
model=$out/kjv.llm
text=tests/data/text/genesis1.txt
programs="generate perplexity tokenize bench bench_tokenize npc simple"
# Lines on stderr, less the slow-build warning (a sanitizer build is unoptimised).
lines() { grep -v 'warning: built without' "$1" | wc -l | tr -d ' '; }

# run P ARGS...: the exit status in $rc, stdout and stderr in $out/P.out, $out/P.err.
run() { p=$1; shift; rc=0; $b/$p "$@" < /dev/null > $out/$p.out 2> $out/$p.err || rc=$?; }
# usage_error P WHAT ARGS...: status 2, nothing on stdout, one line on stderr holding WHAT.
usage_error() {
  p=$1; what=$2; shift 2
  run $p "$@"
  [ $rc = 2 ] || fail "$p $*: status $rc, not 2: $(cat $out/$p.err)"
  [ ! -s $out/$p.out ] || fail "$p $*: wrote to stdout"
  [ "$(lines $out/$p.err)" = 1 ] || fail "$p $*: not one line on stderr: $(cat $out/$p.err)"
  grep -qF -- "$what" $out/$p.err || fail "$p $*: '$what' not in: $(cat $out/$p.err)"
}

# Unknown flags, last or not, and bare words.
for p in $programs; do
  usage_error $p "unknown option '--color'" --color
  [ $p = simple ] || usage_error $p "unknown option '-i'" -m $model -i   # simple: the model and a message, no -m
done
for p in generate perplexity tokenize bench bench_tokenize npc; do
  usage_error $p "unexpected argument '$model' (options start with '-'" $model
done
usage_error generate "unknown option '--promt' (did you mean '--prompt'?)" -m $model --promt x
usage_error perplexity "(did you mean '--chunks'?)" -m $model -f $text --chunk 1
usage_error generate "-p needs a value" -m $model -p
echo "ok   unknown options, bare words and missing values"

# Bad numbers: the flag and the value named, nothing run.
for f in "-n abc" "-c abc" "-t x" "--temp x" "--seed x" "-b x" "-n 1x" "-n 99999999999" "--top-k -1" "-b 0" "--seed -1"; do
  set -- $f
  usage_error generate "$1: " -m $model -p hi $f
  grep -qF -- "$2" $out/generate.err || fail "generate $f: the value is not named: $(cat $out/generate.err)"
done
for f in "-c abc" "-b x" "--chunks x" "-t x"; do usage_error perplexity "${f%% *}: " -m $model -f $text $f; done
for f in "-p x" "-n x" "-r x" "-t x" "--busy x"; do usage_error bench "${f%% *}: " -m $model $f; done
for f in "-n x" "-n 1.5" "--fps x" "--budget x" "-t x"; do usage_error npc "${f%% *}: " -m $model $f; done
usage_error bench_tokenize "-r: " -m $model -r x
echo "ok   bad numbers"

# --help: each flag once, and each one taken (not "unknown option").
for p in $programs; do
  $b/$p --help > $out/$p.help
  sed -n 's/^  \(-[-a-z0-9]*\)\(, \(--[-a-z0-9]*\)\)\{0,1\}.*/\1 \3/p' $out/$p.help | tr ' ' '\n' | grep . > $out/$p.flags || true
  dup=$(sort $out/$p.flags | uniq -d)
  [ -z "$dup" ] || fail "$p --help lists $dup more than once"
  for f in $(cat $out/$p.flags); do
    run $p $f -h   # a flag with a value takes -h as it; one without does no work before --help
    ! grep -q "unknown option '$f'" $out/$p.err || fail "$p --help lists $f, which $p does not take"
  done
done
echo "ok   --help lists each flag once, and each is taken"

# generate -f and -b: the prompt from a file, prompt chunks of any size give the same text.
g=$b/generate
printf 'In the beginning' > $out/prompt.txt
$g -m $model -p "In the beginning" -n 12 -t 1 > $out/p.txt 2> /dev/null
$g -m $model -f $out/prompt.txt -n 12 -t 1 > $out/f.txt 2> /dev/null || fail "generate -f: status $?"
cmp -s $out/p.txt $out/f.txt || fail "generate -f differs from -p: '$(cat $out/f.txt)'"
$g -m $model --file $out/prompt.txt --batch-size 2 -n 12 -t 1 > $out/b.txt 2> /dev/null || fail "generate -b: status $?"
cmp -s $out/p.txt $out/b.txt || fail "generate -b 2 differs: '$(cat $out/b.txt)'"
echo "ok   generate -f, -b"

# --ids and no prompt: the text, as with -p; the ids with --print-ids.
ids=$($g -m $model -p "In the beginning" -n 0 --print-ids 2> /dev/null)
[ -n "$ids" ] || fail "generate --print-ids printed nothing"
$g -m $model --ids "$ids" -n 12 -t 1 > $out/ids.txt 2> /dev/null
cmp -s $out/p.txt $out/ids.txt || fail "generate --ids '$ids': '$(cat $out/ids.txt)', not the text of -p"
$g -m $model -n 12 -t 1 > $out/bos.txt 2> /dev/null
[ "$(wc -l < $out/bos.txt | tr -d ' ')" = 1 ] && [ "$(wc -c < $out/bos.txt | tr -d ' ')" -gt 12 ] ||
  fail "generate without a prompt: '$(cat $out/bos.txt)'"
echo "ok   generate --ids and no prompt print text"

# A context past the 256 positions kjv-tiny was trained for: one warning, then the work.
$g -m $model -p hi -n 2 -t 1 -c 300 > /dev/null 2> $out/warn.err || fail "generate -c 300: status $?"
[ "$(grep -c 'warning: .*300.*256' $out/warn.err)" = 1 ] || fail "generate -c 300: no one warning: $(cat $out/warn.err)"
$g -m $model -p hi -n 2 -t 1 -c 256 > /dev/null 2> $out/warn.err
! grep -q 'warning: .*256' $out/warn.err || fail "generate -c 256 warns: $(cat $out/warn.err)"
echo "ok   a context past the trained positions warns once"

# Files that do not open or read: status 1, one line with the path and the system's reason.
# open_error P PATH ARGS...
open_error() {
  p=$1; path=$2; shift 2
  run $p "$@"
  [ $rc = 1 ] || fail "$p $*: status $rc, not 1"
  [ "$(lines $out/$p.err)" = 1 ] || fail "$p $*: not one line on stderr: $(cat $out/$p.err)"
  grep -q "cannot \(open\|read\) $path: [A-Za-z]" $out/$p.err || fail "$p $*: no reason: $(cat $out/$p.err)"
}
for p in generate perplexity tokenize bench bench_tokenize npc; do
  case $p in perplexity) extra="-f $text";; *) extra="";; esac
  open_error $p $out/missing.llm -m $out/missing.llm $extra
  open_error $p $out -m $out $extra
done
open_error simple $out/missing.llm $out/missing.llm
open_error generate $out --ids-file $out -m $model
open_error generate $out -f $out -m $model
open_error generate $out/missing.txt -f $out/missing.txt -m $model
open_error bench_tokenize $out -m $model -f $out
rc=0; $b/tokenize -m $model < $out > $out/tokenize.out 2> $out/tokenize.err || rc=$?
[ $rc = 1 ] && grep -q 'cannot read the input: [A-Za-z]' $out/tokenize.err || fail "tokenize < a directory: status $rc: $(cat $out/tokenize.err)"
echo "ok   files that do not open or read"

# Status lines start a line when stdout and stderr go to one place; stdout alone is the text
# and one newline.
$g -m $model -p "In the beginning" -c 16 -n 40 -t 1 > $out/both.txt 2>&1
grep -q '^generate: stopped after [0-9]* tokens' $out/both.txt || fail "the status line is glued to the text: $(cat $out/both.txt)"
$g -m $model -p "In the beginning" -c 16 -n 40 -t 1 > $out/text.txt 2> /dev/null
[ "$(wc -l < $out/text.txt | tr -d ' ')" = 1 ] && [ "$(tail -c 1 $out/text.txt | od -An -c | tr -d ' ')" = '\n' ] ||
  fail "generate stdout is not one line of text"
echo "ok   status lines on lines of their own"

# bench names its kernels and threading (what llm_system_info says).
$b/bench -m $model -p 8 -n 4 -r 1 -t 1 > $out/bench.txt 2> /dev/null
head -n 1 $out/bench.txt | grep -q 'kernels [a-z0-9-]*, threads [a-z]*' || fail "bench: no kernels in $(head -n 1 $out/bench.txt)"
echo "ok   bench names its kernels"

# An unoptimised build says so, once, before the work (not for --help).
if [ "${LLM_TEST_QUICK:-0}" != 1 ] && [ "$(head -c 2 $b/generate)" != '#!' ]; then
  make --no-print-directory -s B=$out/O0 CFLAGS=-O0 EXE= $out/O0/generate > $out/O0.log 2>&1 || fail "an -O0 build: $(cat $out/O0.log)"
  $out/O0/generate -m $model -p hi -n 1 -t 1 > /dev/null 2> $out/O0.err
  [ "$(grep -c '^generate: warning: built without optimisation' $out/O0.err)" = 1 ] || fail "-O0 build: no warning: $(cat $out/O0.err)"
  $out/O0/generate --help > /dev/null 2> $out/O0.err
  [ ! -s $out/O0.err ] || fail "-O0 build: --help warns"
  echo "ok   an unoptimised build warns"
fi
echo "command-line flags: all checks passed"
