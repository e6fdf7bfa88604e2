#!/bin/sh
# Runs every test program ($BUILD/tests/test_*) and script (tests/test_*.sh) from the
# repository root. A test passes with exit 0; one that prints a line starting with SKIP is
# counted as skipped. Ends with "N passed, N failed, N skipped".
#   BUILD=DIR       the build directory to test (default build); scripts read it too, and
#                   call programs as $BUILD/NAME
#   SKIP_TESTS="a b"  test names to skip (host-only checks in a cross or sanitizer build)
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
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
pass=0; fail=0; skip=0; failed=""
for t in "$BUILD"/tests/test_* tests/test_*.sh; do
  [ -f "$t" ] || continue
  case "$t" in *.c|*.o|*.exe|*.bin) continue;; esac
  name=$(basename "$t")
  case " $SKIP_TESTS " in *" $name "*) skip=$((skip+1)); echo "skip $name: not run for $BUILD"; continue;; esac
  log="$BUILD/logs/$name.log"
  start=$(date +%s)
  if [ "${t%.sh}" != "$t" ]; then sh "$t" >"$log" 2>&1; rc=$?; else "$t" >"$log" 2>&1; rc=$?; fi
  secs=$(( $(date +%s) - start ))
  if [ $rc -ne 0 ]; then
    fail=$((fail+1)); failed="$failed $name"
    echo "FAIL $name (${secs}s)"; tail -n 20 "$log" | sed 's/^/    /'
  elif grep -q '^SKIP' "$log"; then
    skip=$((skip+1)); echo "skip $name: $(grep -m1 '^SKIP' "$log")"
  else
    pass=$((pass+1)); echo "ok   $name (${secs}s)"
  fi
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
