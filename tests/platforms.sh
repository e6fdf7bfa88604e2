#!/bin/sh
# tests/platforms.sh [NAME ...]: builds the suite for each compiler and platform of the
# Portability table in README.md, into build/platforms/NAME, and runs it there (cross builds
# through qemu-user or wine). With names, only those. Prints one line per platform and fails
# if any failed. The packages come from .ci/run.
cd "$(dirname "$0")/.." || exit 1
P=build/platforms
mkdir -p $P
host_only="test_build.sh test_cmake.sh test_install.sh test_readme.sh"   # they build with the host compiler themselves (test_readme: make)
# C tests that drive programs through system() with POSIX shell commands (cmd.exe on Windows)
posix_shell="test_reference test_generate test_chat_prompt test_end_of_turn test_state test_step"
# Under emulation (qemu, wine), the slowest tests whose code has no platform-specific path
# (chat template rendering, the scripted chat, the sampler's statistics and 150k-vocabulary
# timing, the reference forward pass of every variant: test_golden, test_kjv and test_ops
# cover the forward pass there) are left to the native rows, to keep CI within its time.
emulated_slow="test_chat_prompt test_chat_run.sh test_sampler test_reference"
rm -f $P/*.result
want() { [ -z "$only" ] || case " $only " in *" $1 "*) return 0;; *) return 1;; esac; }
# note NAME TEXT [DETAILS]: the platform's one-line result (FAILED... marks a failure)
note() { { printf '%-10s %s\n' "$1" "$2"; [ -n "$3" ] && printf '%s\n' "$3"; } > $P/$1.result; }

# Cross-built programs are NAME.bin or NAME.exe; NAME becomes a script that runs them.
wrap() {
  for f in "$1"/*"$3" "$1"/tests/*"$3"; do
    [ -f "$f" ] || continue
    printf '#!/bin/sh\nexec %s "$0%s" "$@"\n' "$2" "$3" > "${f%$3}"
    chmod +x "${f%$3}"
  done
}

# suite NAME RUNNER SUFFIX MAKE_ARGS...: build with make, run tests/run_all.sh.
suite() {
  name=$1; runner=$2; suffix=$3; shift 3
  want "$name" || return 0
  b=$P/$name; start=$(date +%s)
  if ! make --no-print-directory -j2 B=$b EXE=$suffix "$@" test-build >$P/$name.build.log 2>&1; then
    note "$name" "FAILED to build (see $P/$name.build.log)" "$(tail -n 15 $P/$name.build.log | sed 's/^/    /')"; return 0
  fi
  [ -n "$runner" ] && wrap $b "$runner" "$suffix"
  skip="$host_only"; [ -n "$runner" ] && skip="$skip $emulated_slow"; [ "$suffix" = .exe ] && skip="$skip $posix_shell"
  BUILD=$b SKIP_TESTS="$skip" sh tests/run_all.sh >$P/$name.log 2>&1; rc=$?
  result="$(tail -n 1 $P/$name.log) ($(( $(date +%s) - start )) s)"
  if [ $rc -ne 0 ]; then note "$name" "FAILED: $result" "$(grep -A12 '^FAIL' $P/$name.log | sed 's/^/    /')"
  else note "$name" "$result"; fi
}

STRICT="-O2 -Werror"
C99="-std=c99 -Wall -Wextra -Wpedantic"
# OpenMP on and off, 1 to 3 threads: bitwise identical logits for every prompt position.
check_openmp() {
  want openmp || return 0
  start=$(date +%s); ok=1
  make --no-print-directory -s B=$P/openmp $P/openmp/generate >$P/openmp.build.log 2>&1 &&
  make --no-print-directory -s B=$P/no-openmp OPENMP=0 $P/no-openmp/generate >>$P/openmp.build.log 2>&1 &&
  build/convert models/kjv-tiny $P/kjv.llm >/dev/null || ok=0
  ids=tests/data/kjv-tiny-golden/greedy_ids.txt
  [ $ok = 1 ] && $P/no-openmp/generate -m $P/kjv.llm -n 0 --ids-file $ids --dump-logits $P/logits-1.f32 2>/dev/null || ok=0
  for t in 1 2 3; do
    [ $ok = 1 ] && $P/openmp/generate -m $P/kjv.llm -t $t -n 0 --ids-file $ids --dump-logits $P/logits-omp$t.f32 2>/dev/null &&
      cmp -s $P/logits-1.f32 $P/logits-omp$t.f32 || ok=0
  done
  if [ $ok = 1 ]; then note openmp "logits of $(wc -w < $ids) positions identical without OpenMP and with 1, 2, 3 threads ($(( $(date +%s) - start )) s)"
  else note openmp "FAILED: logits differ or a run failed (see $P/openmp.build.log)"; fi
}

# WebAssembly: the example built by emscripten, run by node on the kjv-tiny model. (NODE_PATH:
# emcc's JS optimizer needs Debian's node-acorn, which a node not from Debian does not see.)
check_wasm() {
  want wasm || return 0
  start=$(date +%s); b=$P/wasm; mkdir -p $b
  ids=tests/data/kjv-tiny-golden
  emflags="-std=c99 -Wall -Wextra -Wpedantic -Werror -O2 -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1"
  if ! command -v emcc >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    note wasm "FAILED: emcc or node is not installed (.ci/run installs them)"
  elif ! { build/convert models/kjv-tiny $b/kjv.llm >/dev/null &&
           NODE_PATH=/usr/share/nodejs emcc $emflags -o $b/generate.js examples/generate.c -lm &&
           NODE_PATH=/usr/share/nodejs emcc $emflags -o $b/simple.js examples/simple.c -lm; } >$b/build.log 2>&1; then
    note wasm "FAILED to build (see $b/build.log)" "$(tail -n 5 $b/build.log | sed 's/^/    /')"
  else
    # node 18+ has a fetch() that emscripten's loader mistakes for a browser's
    node --no-experimental-fetch $b/generate.js -m $b/kjv.llm --ids-file $ids/prompt_ids.txt -n 16 --print-ids >$b/ids.txt 2>$b/run.log
    node --no-experimental-fetch $b/simple.js $b/kjv.llm "In the beginning" >$b/simple.txt 2>>$b/run.log; rc=$?
    n=$(wc -w < $b/ids.txt)
    expect=$(tr ' ' '\n' < $ids/greedy_ids.txt | head -n $n | tr '\n' ' ' | sed 's/ $//')
    if [ "$n" -gt 5 ] && [ "$(cat $b/ids.txt)" = "$expect" ] && [ $rc -eq 0 ] && [ "$(wc -c < $b/simple.txt)" -gt 20 ]; then
      note wasm "simple.js replies, generate.js: $n ids equal the golden, in node ($(( $(date +%s) - start )) s)"
    else note wasm "FAILED: in node, other ids or no reply (see $b/run.log, $b/ids.txt, $b/simple.txt)"; fi
  fi
}

only="$*"
make --no-print-directory -s build/convert || exit 1   # the openmp and wasm checks convert with it
# gcc-multilib conflicts with the aarch64 cross compiler in Debian; libc6-dev-i386 and
# lib32gcc-12-dev make gcc -m32 work, given the kernel's asm headers (the same for both).
mkdir -p $P/m32-include && ln -sfn /usr/include/x86_64-linux-gnu/asm $P/m32-include/asm
# Two lanes at once (most tests use one core), balanced by their usual run time.
{
  suite gcc      "" "" CC=gcc "CFLAGS=$STRICT"
  suite g++      "" "" "CC=g++ -x c++" "WARN=-std=c++11 -Wall -Wextra -Wpedantic" TEST_CC=gcc "TEST_WARN=$C99" "CFLAGS=$STRICT"
  suite m32      "" "" "CC=gcc -m32 -isystem $P/m32-include" PORTABLE=1 "CFLAGS=$STRICT"
  suite windows  "env WINEDEBUG=-all wine" .exe CC=x86_64-w64-mingw32-gcc PORTABLE=1 "CFLAGS=$STRICT -static"
  suite no-simd  "" "" "CFLAGS=$STRICT -DLLM_NO_SIMD"
  check_openmp
} &
{
  suite clang    "" "" CC=clang "CFLAGS=$STRICT"
  suite clang++  "" "" "CC=clang++ -x c++" "WARN=-std=c++11 -Wall -Wextra -Wpedantic" TEST_CC=clang "TEST_WARN=$C99" "CFLAGS=$STRICT"
  suite aarch64  "qemu-aarch64 -L /usr/aarch64-linux-gnu" .bin CC=aarch64-linux-gnu-gcc PORTABLE=1 "CFLAGS=$STRICT"
  suite no-mmap  "" "" "CFLAGS=$STRICT -DLLM_NO_MMAP"
  suite no-thread "" "" "CFLAGS=$STRICT -DLLM_NO_THREADS" OPENMP=0
  check_wasm
} &
wait

failed=""
for name in gcc clang g++ clang++ m32 aarch64 windows no-mmap no-simd no-thread openmp wasm; do
  [ -f $P/$name.result ] || continue
  cat $P/$name.result
  head -n 1 $P/$name.result | grep -q ' FAILED' && failed="$failed $name"
done
echo "platforms:${failed:- all passed}"
[ -z "$failed" ]
