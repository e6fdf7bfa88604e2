#!/bin/sh
# Command-line conventions of every program (tools/convert.c and each programs/*.c and
# examples/*.c with a main): --help and -h print usage on stdout and exit 0; an unknown
# option or a missing model fails with a message on stderr, nothing on stdout and a
# non-zero status; the llama.cpp spellings of the shared flags (long and short) mean the
# same; --no-mmap changes nothing but how the weights get in; generated text alone goes to stdout. The converter's summary is on stdout, its progress on stderr.
set -e
b=${BUILD:-build}
out=$b/tests/cli; mkdir -p $out
fail() { echo "FAIL: $*"; exit 1; }
$b/convert models/kjv-tiny $out/kjv.llm > $out/summary.txt 2> $out/progress.txt
tr -d '\r' < $out/summary.txt > $out/summary.lf && mv $out/summary.lf $out/summary.txt  # Windows ends lines with \r\n
model=$out/kjv.llm
text=tests/data/text/genesis1.txt

# Every program, found from the sources so that a new one cannot be forgotten: each program
# and example with a main, and each tool the build makes (tools/gen_unicode.c is a generator run by hand).
programs=""
for src in tools/*.c programs/*.c examples/*.c; do
  name=$(basename "$src" .c)
  case $src in tools/*) [ -x "$b/$name" ] || continue;; esac
  grep -q '^int main' "$src" && programs="$programs $name"
done
echo "programs: $programs"
for p in $programs; do
  bin=$b/$p
  [ -x "$bin" ] || fail "$bin is not built"
  for h in --help -h; do
    rc=0; $bin $h > $out/$p.help 2> $out/$p.help.err || rc=$?
    [ $rc = 0 ] || fail "$p $h: exit status $rc"
    grep -q '^usage: ' $out/$p.help || fail "$p $h: no usage on stdout"
    [ ! -s $out/$p.help.err ] || fail "$p $h: wrote to stderr: $(cat $out/$p.help.err)"
  done
  rc=0; $bin --no-such-flag < /dev/null > $out/$p.bad 2> $out/$p.bad.err || rc=$?
  [ $rc != 0 ] || fail "$p --no-such-flag: exit status 0"
  [ ! -s $out/$p.bad ] || fail "$p --no-such-flag: wrote to stdout"
  [ -s $out/$p.bad.err ] || fail "$p --no-such-flag: no message on stderr"
  # a model that does not exist (the converter: a directory; simple: its first argument)
  case $p in
    gen_model) echo "ok   $p: --help, -h, an unknown option"; continue ;;
    convert) set -- $out/missing-dir $out/x.llm ;;
    simple) set -- $out/missing.llm ;;
    perplexity) set -- -m $out/missing.llm -f $text ;;
    *) set -- -m $out/missing.llm ;;
  esac
  rc=0; $bin "$@" < /dev/null > $out/$p.missing 2> $out/$p.missing.err || rc=$?
  [ $rc != 0 ] || fail "$p $*: exit status 0"
  [ ! -s $out/$p.missing ] || fail "$p $*: wrote to stdout: $(cat $out/$p.missing)"
  grep -q "missing" $out/$p.missing.err || fail "$p $*: the message does not name the file: $(cat $out/$p.missing.err)"
  echo "ok   $p: --help, -h, an unknown option, a missing model"
done

# The flags llama.cpp users type, in each program's usage.
need() { for f in $2; do grep -q -- "$f[ ,]" $out/$1.help || fail "$1 --help does not list $f"; done; }
sampling="--temp --top-k --top-p --min-p --repeat-penalty --seed"
need generate "-m -p -f -n -t -c -b -s $sampling"
need chat "-m -n -t -c -b -f -s -sys $sampling"   # chat: -s is the seed, the system prompt -sys or -f
need npc "-m -p -n -t"   # an example: its own few flags, the sampler set in its code
need perplexity "-m -f -c -b -t"
need tokenize "-m"
need bench_tokenize "-m -f"
need bench "-m -p -n -t"

# Long and short spellings mean the same.
g="$b/generate"
$g -m $model -p "In the beginning" -n 12 -t 1 -c 64 -s 7 --temp 0.9 --top-k 20 --top-p 0.9 --min-p 0.05 --repeat-penalty 1.1 \
  > $out/short.txt 2> $out/short.err
$g --model $model --prompt "In the beginning" --n-predict 12 --threads 1 --ctx-size 64 --seed 7 --temp 0.9 --top-k 20 \
  --top-p 0.9 --min-p 0.05 --repeat-penalty 1.1 > $out/long.txt 2>/dev/null
cmp -s $out/short.txt $out/long.txt || fail "long flags differ from short ones"
$g -m $model -p "In the beginning" -n 12 -t 1 -s 8 --temp 0.9 > $out/seed8.txt 2>/dev/null
! cmp -s $out/short.txt $out/seed8.txt || fail "-s does not change the seed"
# --no-mmap reads the weights instead of mapping them: the same text, and bench says which.
$g -m $model -p "In the beginning" -n 12 -t 1 -c 64 -s 7 --temp 0.9 --top-k 20 --top-p 0.9 --min-p 0.05 --repeat-penalty 1.1 \
  --no-mmap > $out/read.txt 2>/dev/null
cmp -s $out/short.txt $out/read.txt || fail "generate --no-mmap differs from the mapped file"
$b/bench -m $model -p 4 -n 4 -r 1 -t 1 2>/dev/null | grep -q '^open [0-9.]* ms (\(mapped\|read into memory\)); ' ||
  fail "bench: the open line does not say how the weights got in"
$b/bench -m $model -p 4 -n 4 -r 1 -t 1 --no-mmap 2>/dev/null | grep -q '^open [0-9.]* ms (read into memory); ' ||
  fail "bench --no-mmap: no 'read into memory' on the open line"

# Generated text alone on stdout: the prompt and the continuation; timings on stderr.
$g -m $model -p "In the beginning" -n 12 -t 1 -c 64 -s 7 --temp 0.9 --top-k 20 --top-p 0.9 --min-p 0.05 --repeat-penalty 1.1 \
  --no-display-prompt > $out/cont.txt 2>/dev/null
[ "$(cat $out/short.txt)" = "In the beginning$(cat $out/cont.txt)" ] || fail "generate stdout: '$(cat $out/short.txt)'"
grep -q 'generated 12 tokens' $out/short.err || fail "generate: no timings on stderr"
! grep -q 'tok/s' $out/short.txt || fail "generate: timings on stdout"
OMP_NUM_THREADS=1 $b/npc -m $model -n 8 --fps 200 > $out/npc.txt 2> $out/npc.err
[ "$(wc -l < $out/npc.txt)" = 1 ] && ! grep -q 'npc:' $out/npc.txt || fail "npc: stdout is not the line alone"
grep -q '8 tokens in' $out/npc.err || fail "npc: no summary on stderr"
$b/perplexity -m $model -f $text -c 64 --chunks 1 -t 1 > $out/ppl.txt 2> $out/ppl.err
[ "$(wc -l < $out/ppl.txt)" = 2 ] && grep -q '^ppl: ' $out/ppl.txt || fail "perplexity: stdout is not the results alone"

# The converter: progress on stderr (a line per tensor when not on a terminal), the summary
# on stdout with the numbers of models/kjv-tiny/README.md.
[ "$(grep -c ' -> ' $out/progress.txt)" = 38 ] || fail "convert: expected 38 tensor lines on stderr"
! grep -q ' -> ' $out/summary.txt || fail "convert: progress on stdout"
grep -q '^  architecture  llama: 4 layers, hidden 256, heads 8 (kv 4), head_dim 32, ffn 672, vocab 2048, context 256$' \
  $out/summary.txt || fail "convert: architecture line: $(grep architecture $out/summary.txt)"
grep -q '^  parameters    3377408 ' $out/summary.txt || fail "convert: parameters"
grep -q '^  dtypes        9 tensors f32 (.*), 29 tensors bf16 (.*)$' $out/summary.txt || fail "convert: dtype mix"
grep -q "^  file size     $(wc -c < $model | tr -d ' ') bytes" $out/summary.txt || fail "convert: file size"
grep -q '^  time          ' $out/summary.txt || fail "convert: time"
# (On a terminal: only for native programs, not the scripts that run a cross build through
# qemu or wine, whose terminal is not the one script(1) makes.)
if command -v script > /dev/null 2>&1 && script -qc true /dev/null > /dev/null 2>&1 && [ "$(head -c 2 $b/convert)" != '#!' ]; then
  script -qc "$b/convert models/kjv-tiny $out/tty.llm" /dev/null > $out/tty.txt 2>&1
  grep -q '38/38 tensors, 6.8/6.8 MB, [0-9]* MB/s' $out/tty.txt || fail "convert: no progress bar on a terminal"
  ! grep -q ' -> ' $out/tty.txt || fail "convert: a line per tensor on a terminal"
  echo "ok   convert: progress bar on a terminal"
fi
echo "command-line conventions: all programs follow them"
