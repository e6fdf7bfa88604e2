#!/bin/sh
# Runs every test program ($BUILD/tests/test_*) and script (tests/test_*.sh) from the
# repository root. A test passes with exit 0; one that prints a line starting with SKIP (an
# optional tool or ../shared is absent: tests/need.sh) is counted as skipped. Ends with
# "N passed, N failed, N skipped".
#   BUILD=DIR       the build directory to test (default build); scripts read it too, and
#                   call programs as $BUILD/NAME
#   SKIP_TESTS="a b"  tests that do not apply to this build (host-only checks in a cross or
#                   sanitizer build): not run and not counted
#   JOBS=N          tests run N at a time (default 2: most use one core); the scripts come
#                   first, as they take longest
#   LLM_TEST_KEEP=1 keep the scratch files of the tests that pass too
# A test writes its scratch files under $BUILD/tests/NAME (test_NAME, test_NAME.sh). They are
# removed when it passes or skips, so that the suite's disk use stays that of the tests
# running at the moment, and kept for a look when it fails.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
JOBS=${JOBS:-2}
mkdir -p "$BUILD/logs"
if [ "$BUILD" != build ]; then
  # Tests name build/NAME (C tests shell out to build/convert, ...): run them from a copy of
  # the top level made of links, where build is $BUILD (and ../shared is ../shared).
  top=$(pwd); shadow=$BUILD/root
  rm -rf "$shadow"; mkdir -p "$shadow"
  for e in "$top"/*; do [ "$(basename "$e")" = build ] || ln -s "$e" "$shadow/$(basename "$e")"; done
  ln -s "$(cd "$BUILD" && pwd)" "$shadow/build"
  if [ -d ../shared ]; then ln -sfn "$(cd ../shared && pwd)" "$BUILD/shared"; fi
  cd "$shadow" || exit 1
  BUILD=build
fi
export BUILD
# Two tests at a time on a two-core machine: OpenMP's idle workers sleep instead of spinning
# on the core the other test needs (libgomp spins for a while by default, libomp longer).
[ "$JOBS" -gt 1 ] && export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
logs=$BUILD/logs
rm -rf "$logs/run"; mkdir -p "$logs/run"
tests=""; not_run=""
for t in tests/test_*.sh "$BUILD"/tests/test_*; do
  [ -f "$t" ] || continue
  case "$t" in *.c|*.o|*.exe|*.bin) continue;; esac
  case " $SKIP_TESTS " in *" $(basename "$t") "*) not_run="$not_run $(basename "$t")"; continue;; esac
  tests="$tests $t"
done
[ -n "$not_run" ] && echo "not run for this build:$not_run"

# run_one PATH: runs a test, prints its line, leaves pass/fail/skip in $logs/run/NAME.
run_one() {
  name=$(basename "$1"); log="$logs/$name.log"
  start=$(date +%s)
  if [ "${1%.sh}" != "$1" ]; then sh "$1" >"$log" 2>&1; rc=$?; else "$1" >"$log" 2>&1; rc=$?; fi
  secs=$(( $(date +%s) - start ))
  if [ $rc -ne 0 ]; then
    echo fail > "$logs/run/$name"
    # one write, so that the lines of another lane do not land inside it
    printf 'FAIL %s (%ss, exit %s)\n%s\n' "$name" "$secs" "$rc" "$(tail -n 20 "$log" | sed 's/^/    /')"
  elif grep -q '^SKIP' "$log"; then
    echo skip > "$logs/run/$name"; grep -m1 '^SKIP' "$log"
  else
    echo pass > "$logs/run/$name"; echo "ok   $name (${secs}s)"
  fi
  [ $rc -ne 0 ] || [ "${LLM_TEST_KEEP:-0}" = 1 ] || rm -rf "$BUILD/tests/$(basename "$name" .sh | sed 's/^test_//')"
}

# JOBS lanes take the tests in order, each claiming the next one not yet taken (mkdir is
# atomic).
lane() {
  for t in $tests; do
    mkdir "$logs/run/claim.$(basename "$t")" 2>/dev/null && run_one "$t"
  done
}
i=1
while [ $i -lt "$JOBS" ]; do lane & i=$((i + 1)); done
lane
wait

pass=0; fail=0; skip=0; failed=""
for t in $tests; do
  name=$(basename "$t")
  case $(cat "$logs/run/$name" 2>/dev/null) in
    pass) pass=$((pass+1));;
    skip) skip=$((skip+1));;
    *) fail=$((fail+1)); failed="$failed $name";;
  esac
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
