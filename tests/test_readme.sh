#!/bin/sh
# Runs every command README.md marks as tested, so the README cannot rot: each fenced block
# whose info string is `sh test` runs, in the order of the README, as one sh -e script from
# the repository root, and must exit 0. Other blocks (sample output, commands that need a
# model directory of your own) are not run.
#
# `make test` in a block would run this test again, inside itself: such a line is run as
# `make -n test` (the target must exist and be runnable) instead, and said so.
set -e
out=build/tests/readme; rm -rf $out; mkdir -p $out
# Blocks run like commands typed in a shell: not as part of the make that runs this test
# (its jobserver and flags), and on one thread each (the machine runs other tests too).
unset MAKEFLAGS MFLAGS MAKELEVEL
export OMP_NUM_THREADS=1
awk -v out=$out '
  /^```sh test[ \t]*$/ { n++; file = sprintf("%s/block%02d.sh", out, n); inside = 1; printf "" > file; next }
  inside && /^```/ { inside = 0; close(file); next }
  inside { print > file }
' README.md
n=$(ls $out/block*.sh 2>/dev/null | wc -l | tr -d ' ')
[ "$n" -ge 5 ] || { echo "FAIL: only $n tested blocks in README.md"; exit 1; }
fail=0
for b in $out/block*.sh; do
  sed -e 's/^make test\([ \t]*\(#.*\)\{0,1\}\)$/make -n test > \/dev\/null \&\& echo "(make test: checked with make -n, as this test runs inside make test)"/' \
      "$b" > "$b.run"
  echo "== $(basename $b .sh): $(grep -c . "$b") command line(s)"
  sed 's/^/   $ /' "$b"
  if sh -e "$b.run" > "$b.out" 2>&1; then
    tail -n 3 "$b.out" | cut -c1-160 | sed 's/^/   > /'
  else
    echo "FAIL: README block $(basename $b .sh) failed:"; tail -n 20 "$b.out" | sed 's/^/   | /'
    fail=1
  fi
done
[ $fail = 0 ] || exit 1
echo "README: $n tested blocks ran"
