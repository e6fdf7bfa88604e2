#!/bin/sh
# build/bench --peak: with one thread, a positive f32 FMA peak, an int8 one and a bf16 one (or
# the reason there is none), within 5 s, and no line that starts with SKIP (the AMX line says
# why it is not measured); with the built-in model, the prompt speed as a share of the f32 FMA
# peak (bf16 weights), with --bf16-dot of the bf16 one, and in q8_0 of the int8 one. Peaks are measured on x86-64 only: elsewhere
# bench says so and the test is skipped. --kernels: the set asked for runs, an unknown name is refused;
# --prefetch likewise.
set -e
b=${BUILD:-build}
out=$b/tests/bench; mkdir -p $out
fail() { echo "FAIL: $*"; exit 1; }

start=$(date +%s)
$b/bench --peak -t 1 2> $out/peak.err | tr -d '\r' > $out/peak.txt  # Windows: \r\n
secs=$(( $(date +%s) - start ))
cat $out/peak.txt
if grep -q '^f32 FMA peak: not measured (x86-64 only)' $out/peak.txt; then
  echo "SKIP test_bench: compute peaks are measured on x86-64 only"; exit 0
fi
! grep -q '^SKIP' $out/peak.txt || fail "a line of bench's output starts with SKIP"
grep -q '^int8 AMX peak' $out/peak.txt || fail "no AMX line"
# the figure of a peak line with 1 thread, or nothing
figure() { sed -n "s/^$1 ([^)]*): \([0-9.]*\) G[A-Z]*\/s with 1 thread$/\1/p" $out/peak.txt; }
f=$(figure "f32 FMA peak")
awk -v v="$f" 'BEGIN { exit !(v > 0) }' || fail "no positive f32 FMA peak"
i=$(figure "int8 dot-product peak")
awk -v v="$i" 'BEGIN { exit !(v > 0) }' || grep -q '^int8 dot-product peak: not measured (the CPU lacks avx2)' $out/peak.txt ||
  fail "no positive int8 peak"
h=$(figure "bf16 dot-product peak")
awk -v v="$h" 'BEGIN { exit !(v > 0) }' || grep -q '^bf16 dot-product peak: not measured (the CPU lacks avx512_bf16)' $out/peak.txt ||
  fail "no positive bf16 peak"
[ $secs -lt 5 ] || fail "bench --peak -t 1 took $secs s"
echo "ok   peaks: f32 FMA $f GFLOP/s, int8 ${i:-none} GOP/s, bf16 ${h:-none} GFLOP/s, in $secs s"

$b/convert models/kjv-tiny $out/kjv.llm > $out/convert.log 2>&1
$b/convert models/kjv-tiny $out/kjv-q8_0.llm --dtype q8_0 >> $out/convert.log 2>&1
share() { # MODEL PEAK [FLAG]: bench prints the prompt's share of that peak
  $b/bench -m $1 -p 16 -n 8 -r 1 --peak -t 1 $3 2> $out/model.err | tr -d '\r' > $out/model.txt || fail "bench -m $1 --peak failed"
  grep '^prompt' $out/model.txt
  grep -q "^prompt multiplies [0-9.]* M weights per token: [0-9.]* G[A-Z]*/s\( (int8)\)\{0,1\}, [0-9]*% of the $2 peak measured right before it" $out/model.txt ||
    fail "$1: no share of the $2 peak in: $(grep '^prompt' $out/model.txt)"
}
share $out/kjv.llm "f32 FMA"
[ -n "$h" ] && share $out/kjv.llm "bf16 dot-product" --bf16-dot
[ -n "$i" ] && share $out/kjv-q8_0.llm "int8 dot-product"
echo "ok   bench prints the prompt's share of the peak"

# --kernels: the scalar set, which every build has, runs when asked for and says so; a name
# that is no set is refused with the list
$b/bench -m $out/kjv.llm -p 8 -n 4 -r 1 -t 1 --kernels scalar 2> $out/kernels.err | tr -d '\r' > $out/kernels.txt || fail "bench --kernels scalar failed"
grep -q '^kernels: scalar (asked for)$' $out/kernels.txt || fail "bench --kernels scalar does not say it ran the scalar set"
grep -q '| tg4 |' $out/kernels.txt || fail "bench --kernels scalar printed no tg4 row"
if $b/bench -m $out/kjv.llm --kernels nosuchset > /dev/null 2> $out/kernels.err; then fail "bench --kernels nosuchset was taken"; fi
grep -q "is not a kernel set; one of: auto scalar" $out/kernels.err || fail "bench --kernels nosuchset: $(cat $out/kernels.err)"
echo "ok   bench --kernels runs the set asked for and refuses an unknown name"

# --prefetch: a q8_0 model's run says whether its one-token kernels prefetch, as asked or as
# this CPU's default; a value that is neither on nor off is refused
for pf in on off; do
  $b/bench -m $out/kjv-q8_0.llm -p 8 -n 4 -r 1 -t 1 --prefetch $pf 2> $out/prefetch.err | tr -d '\r' > $out/prefetch.txt ||
    fail "bench --prefetch $pf failed: $(cat $out/prefetch.err)"
  grep -q "^prefetch: $pf (asked for)$" $out/prefetch.txt || fail "bench --prefetch $pf does not say it: $(grep prefetch $out/prefetch.txt)"
done
$b/bench -m $out/kjv-q8_0.llm -p 8 -n 4 -r 1 -t 1 2> $out/prefetch.err | tr -d '\r' > $out/prefetch.txt || fail "bench -m q8_0 failed"
grep -Eq "^prefetch: (on|off) \(this CPU's default\)$" $out/prefetch.txt || fail "bench does not give the default prefetch: $(grep prefetch $out/prefetch.txt)"
# The AVX-512 sets decide by the CPU's vendor, which /proc/cpuinfo names where there is one
# (off on AMD's and Hygon's, on elsewhere); the AVX2 and NEON sets always prefetch
want=
if grep -Eq '^llm.h .*: kernels (neon|neon-dotprod|avx2|avx2-vnni),' $out/prefetch.txt; then want=on
elif grep -Eq '^llm.h .*: kernels (avx512|avx512-amx),' $out/prefetch.txt && grep -q '^vendor_id' /proc/cpuinfo 2>/dev/null; then
  want=on
  if grep -Eq '^vendor_id[[:space:]]*: (AuthenticAMD|HygonGenuine)$' /proc/cpuinfo; then want=off; fi
fi
# and a set asked for by name has its own default: the AVX2 set's is on on every CPU that runs it
if $b/bench -m $out/kjv-q8_0.llm -p 8 -n 4 -r 1 -t 1 --kernels avx2 2> /dev/null | tr -d '\r' > $out/prefetch2.txt; then
  grep -q "^prefetch: on (this CPU's default)$" $out/prefetch2.txt || fail "the avx2 set's default prefetch is not on: $(grep prefetch $out/prefetch2.txt)"
fi
if [ -n "$want" ] && ! grep -q "^prefetch: $want " $out/prefetch.txt; then
  fail "the default prefetch is not $want on this CPU: $(grep prefetch $out/prefetch.txt)"
fi
if $b/bench -m $out/kjv-q8_0.llm --prefetch maybe > /dev/null 2> $out/prefetch.err; then fail "bench --prefetch maybe was taken"; fi
grep -q "is neither on nor off" $out/prefetch.err || fail "bench --prefetch maybe: $(cat $out/prefetch.err)"
echo "ok   bench --prefetch does as asked, gives the default and refuses another value"
