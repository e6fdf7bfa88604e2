#!/bin/sh
# tests/suite.sh [STAGE ...]: make test's stages, each with its time, then one closing line
# "total: N passed, N failed, N skipped" over all of them. The stages (default: all):
#   native    every test program and script, built by make test-build in build/
#   asan      the same tests built by clang with AddressSanitizer + UndefinedBehaviorSanitizer
#             (-O0: a sixth of -O1's build time, and LeakSanitizer sees leaks -O1 hides; the
#             first report stops the program), except the scripts that build with the host
#             compiler themselves and so have nothing sanitized to run; with LLM_TEST_QUICK=1
#             (the slowest scripts run the same code on less data, as on an emulated CPU);
#             not the accuracy and perplexity scripts: they bound numbers (checked by the
#             native stage) computed by the forward pass and kernels that the other scripts
#             run here, and the perplexity program runs here in test_cli.sh
#   valgrind  convert, generate and a chat reply under valgrind memcheck: no errors, no leaks
#   tsan      one model shared by 4 threads, each with its own context, under ThreadSanitizer
# A stage whose tool is absent is one "SKIP STAGE: needs PACKAGE" (tests/need.sh), a failure
# under LLM_TEST_ALL=1 (make test-all). The native stage needs only the C compiler; its
# scripts skip, the same way, the checks whose optional tools are absent.
cd "$(dirname "$0")/.." || exit 1
. tests/need.sh
# Each stage's build sets its own compiler and flags: none of the calling make's variables
# (or its jobserver) reach it.
unset MAKEFLAGS MFLAGS MAKELEVEL
MAKE="make -j2"
stages=${*:-native asan valgrind tsan}
NUMBERS_ONLY_TESTS="test_accuracy.sh test_accuracy_kquant.sh test_perplexity.sh"
HOST_ONLY_TESTS="test_build.sh test_cmake.sh test_dispatch.sh test_install.sh test_readme.sh test_simd.sh test_simd_neon.sh test_unicode.sh"
SAN_FLAGS="-O0 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
# make test-all: the sanitizer build is also the clang -Werror build of the tests (the clang
# platform row builds only the programs)
[ "${LLM_TEST_ALL:-0}" = 1 ] && SAN_FLAGS="$SAN_FLAGS -Werror"
pass=0; fail=0; skip=0; failed=""
log=build/logs; mkdir -p $log

# count NAME RC [LOG]: adds the closing "N passed, N failed, N skipped" of LOG (a run of
# tests/run_all.sh), or one pass or failure by RC.
count() {
  line=$([ -n "$3" ] && grep -E '^[0-9]+ passed, [0-9]+ failed' "$3" | tail -n 1)
  if [ -n "$line" ]; then
    set -- "$1" "$2" $(echo "$line" | tr -dc '0-9 ')
    pass=$((pass + $3)); fail=$((fail + $4)); skip=$((skip + ${5:-0}))
    [ "$4" -gt 0 ] && failed="$failed $1"
  elif [ "$2" = 0 ]; then pass=$((pass + 1))
  else fail=$((fail + 1)); failed="$failed $1"; fi
}

# stage NAME CHECK COMMAND...: runs COMMAND unless CHECK (a need call) says its tool is absent.
stage() {
  name=$1; check=$2; shift 2; s=$(date +%s)
  echo "== $name"
  if ! out=$(eval "$check"); then
    echo "$out"; case $out in SKIP*) skip=$((skip + 1));; *) fail=$((fail + 1)); failed="$failed $name";; esac
    return
  fi
  "$@" 2>&1 | tee $log/stage-$name.log
  rc=$(cat $log/stage-$name.rc 2>/dev/null || echo 1)
  count "$name" "$rc" $log/stage-$name.log
  echo "== $name: $(( $(date +%s) - s )) s"
}
# run COMMAND...: runs it and leaves its exit status where stage reads it (tee hides it).
run() { "$@"; echo $? > $log/stage-$name.rc; }

native() { run env BUILD=build sh tests/run_all.sh; }
asan() {
  $MAKE --no-print-directory -s B=build/asan CC=clang CFLAGS="$SAN_FLAGS" test-build || { echo 1 > $log/stage-asan.rc; return; }
  run env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    LLM_TEST_QUICK=1 BUILD=build/asan SKIP_TESTS="$HOST_ONLY_TESTS $NUMBERS_ONLY_TESTS" sh tests/run_all.sh
}
valgrind_run() {
  $MAKE --no-print-directory -s B=build/valgrind OPENMP=0 CFLAGS="-O1 -g" \
    build/valgrind/convert build/valgrind/generate build/valgrind/simple || { echo 1 > $log/stage-valgrind.rc; return; }
  run sh tests/valgrind.sh build/valgrind
}
tsan() {
  $MAKE --no-print-directory -s B=build/tsan CC=clang OPENMP=0 CFLAGS="-O1 -g -fsanitize=thread" \
    build/tsan/tests/test_threads || { echo 1 > $log/stage-tsan.rc; return; }
  run env TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_threads
}

for st in $stages; do
  rm -f $log/stage-$st.rc
  case $st in
    native)   stage native true native;;
    asan)     stage asan 'need_clang asan "clang libclang-rt-14-dev" -fsanitize=address,undefined' asan;;
    valgrind) stage valgrind 'need valgrind valgrind valgrind' valgrind_run;;
    tsan)     stage tsan 'need_clang tsan "clang libclang-rt-14-dev" -fsanitize=thread' tsan;;
    *) echo "unknown stage $st"; exit 2;;
  esac
done
[ -n "$failed" ] && echo "failed stages:$failed"
echo "total: $pass passed, $fail failed, $skip skipped" | tee $log/total.txt
[ $fail -eq 0 ]
