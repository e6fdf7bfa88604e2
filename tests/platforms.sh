#!/bin/sh
# tests/platforms.sh [NAME ...]: builds the suite for each compiler and platform of the
# Portability table in README.md, into build/platforms/NAME, and runs it there (cross builds
# through qemu-user or wine). With names, only those. Prints one line per platform and fails
# if any failed. The packages come from .ci/run.
#   GCC_BUILD=build  the gcc row is build/, which make test built with CC=gcc and
#                    CFLAGS="-O2 -Werror" (as .ci/run does): it is checked up to date instead
#                    of built a second time, and make test's native stage stands for its
#                    suite when that passed after the last build (else the suite runs again)
cd "$(dirname "$0")/.." || exit 1
unset MAKEFLAGS MFLAGS MAKELEVEL  # each row sets its own compiler and flags
P=build/platforms
mkdir -p $P
# Scripts that build with the host compiler themselves (make test runs them) are not rerun
# per platform; test_readme also runs make.
host_only="test_build.sh test_cmake.sh test_dispatch.sh test_install.sh test_readme.sh test_simd.sh test_simd_neon.sh"
# C tests that drive programs through system() with POSIX shell commands (cmd.exe on Windows)
posix_shell="test_reference test_generate test_chat_prompt test_end_of_turn test_state test_step"
# The scripts a platform row runs besides the C tests: the programs against outside references
# (logits, tokenizer ids, GGUF values, the built-in model's golden ids), the template
# renderer, the fuzz regressions and a scripted chat. The others check the programs'
# command lines, the converter's options and the accuracy of the weight types: the same C code
# on every platform, run natively and under the sanitizers by make test.
platform_scripts="test_golden.sh test_tokenizers.sh test_gguf_llamacpp.sh test_kjv.sh test_chat_jinja.sh test_chat_render.sh test_fuzz_replay.sh test_chat_run.sh"
# A --reuse row (another compiler's build of the programs) runs these of them: the logits, the
# built-in model's ids, the renderer, the fuzz regressions and a chat.
reuse_scripts="test_golden.sh test_kjv.sh test_chat_jinja.sh test_fuzz_replay.sh test_chat_run.sh"
rm -rf $P/*.result $P/*.built $P/claim.*
want() { [ -z "$only" ] || case " $only " in *" $1 "*) return 0;; *) return 1;; esac; }
# note NAME TEXT [DETAILS]: the platform's one-line result (FAILED... marks a failure)
note() { { printf '%-10s %s\n' "$1" "$2"; [ -n "$3" ] && printf '%s\n' "$3"; } > $P/$1.result; }

# need NAME PACKAGES TOOL...: false, and NAME failed, when a TOOL is not installed.
need() {
  n=$1; pk=$2; shift 2
  want "$n" || return 0
  for t in "$@"; do
    command -v $t >/dev/null 2>&1 || { note "$n" "FAILED: $t is not installed (.ci/run installs $pk)"; return 1; }
  done
}

# Cross-built programs are NAME.bin or NAME.exe; NAME becomes a script that runs them.
wrap() {
  for f in "$1"/*"$3" "$1"/tests/*"$3"; do
    [ -f "$f" ] || continue
    printf '#!/bin/sh\nexec %s "$0%s" "$@"\n' "$2" "$3" > "${f%$3}"
    chmod +x "${f%$3}"
  done
}

# suite [--reuse ROW] [--quick] NAME RUNNER SUFFIX MAKE_ARGS...: build with make, run
# tests/run_all.sh. --reuse: build only the programs and run ROW's test programs (the C++
# rows compile the programs as C++ and the C99 tests with ROW's C compiler and flags: the
# same binaries, so of these only the ones that run the programs run again). --quick: LLM_TEST_QUICK=1, the slowest tests (perplexity and
# accuracy: many prompt tokens) do less of the same work, for an emulated CPU and for the
# scalar reference kernels, which are written to be checked against, not to be fast.
suite() {
  reuse=""; quick=0; c_only=0; also_skip=""
  while :; do case $1 in --reuse) reuse=$2; shift 2;; --quick) quick=1; shift;; --c-tests-but) c_only=1; also_skip=$2; shift 2;; *) break;; esac; done
  name=$1; runner=$2; suffix=$3; shift 3
  want "$name" || return 0
  b=$P/$name; start=$(date +%s); target=test-build
  [ $name = gcc ] && [ -n "$GCC_BUILD" ] && b=$GCC_BUILD
  [ -n "$reuse" ] && [ -f $P/$reuse.built ] && target=all
  if ! make --no-print-directory -j2 B=$b EXE=$suffix "$@" $target >$P/$name.build.log 2>&1; then
    note "$name" "FAILED to build (see $P/$name.build.log)" "$(tail -n 15 $P/$name.build.log | sed 's/^/    /')"; return 0
  fi
  if [ $target = all ]; then
    mkdir -p $b/tests
    for f in $(cat $P/$reuse.built)/tests/*; do [ -f "$f" ] && cp -p "$f" $b/tests/; done
  fi
  echo $b > $P/$name.built
  [ -n "$runner" ] && wrap $b "$runner" "$suffix"
  built=$(date +%s)
  skip="$host_only"; [ "$suffix" = .exe ] && skip="$skip $posix_shell"
  for t in tests/test_*.sh; do
    t=$(basename $t); case " $platform_scripts " in *" $t "*) [ $c_only = 0 ] && continue;; esac
    case " $skip " in *" $t "*) ;; *) skip="$skip $t";; esac
  done
  skip="$skip $also_skip"
  # A --reuse row's test programs are ROW's, already run there: only those that drive its
  # own programs (and the scripts, which do) run again.
  if [ $target = all ]; then
    for t in tests/test_*.c; do t=$(basename $t .c); case " $posix_shell " in *" $t "*) ;; *) skip="$skip $t";; esac; done
    for t in $platform_scripts; do case " $reuse_scripts " in *" $t "*) ;; *) skip="$skip $t";; esac; done
  fi
  native=build/logs/stage-native
  if [ $b = "$GCC_BUILD" ] && [ "$(cat $native.rc 2>/dev/null)" = 0 ] && [ -z "$(find $b $b/tests -maxdepth 1 -type f -perm -u+x -newer $native.log)" ]; then
    # make test's native stage ran these tests (and the host-only ones) on these binaries,
    # none rebuilt since: its result stands for the row
    cp $native.log $P/$name.log; rc=0
  else
    LLM_TEST_QUICK=$quick BUILD=$b SKIP_TESTS="$skip" sh tests/run_all.sh >$P/$name.log 2>&1; rc=$?
  fi
  result="$(tail -n 1 $P/$name.log) (build $((built - start)) s, tests $(( $(date +%s) - built )) s)"
  [ $target = all ] && result="$result, the tests of $reuse"
  [ $b = "$GCC_BUILD" ] && result="$result, make test's $b"
  [ $quick = 1 ] && result="$result, LLM_TEST_QUICK=1"
  [ $c_only = 1 ] && result="$result, the C tests but$also_skip"
  if [ $rc -ne 0 ]; then note "$name" "FAILED: $result" "$(grep -A20 '^FAIL' $P/$name.log | sed 's/^/    /')"
  else note "$name" "$result"; fi
}

STRICT="-O2 -Werror"
C99="-std=c99 -Wall -Wextra -Wpedantic"
CXX11="-std=c++11 -Wall -Wextra -Wpedantic"
# OpenMP on and off, 1 to 3 threads: bitwise identical logits for every prompt position.
check_openmp() {
  want openmp || return 0
  start=$(date +%s); ok=1
  make --no-print-directory -s B=$P/openmp $P/openmp/generate >$P/openmp.build.log 2>&1 &&
  make --no-print-directory -s B=$P/no-openmp OPENMP=0 $P/no-openmp/generate >>$P/openmp.build.log 2>&1 &&
  build/convert models/kjv-tiny $P/kjv.llm >/dev/null 2>&1 || ok=0
  ids=tests/data/kjv-tiny-golden/greedy_ids.txt
  [ $ok = 1 ] && $P/no-openmp/generate -m $P/kjv.llm -n 0 --ids-file $ids --dump-logits $P/logits-1.f32 2>/dev/null || ok=0
  for t in 1 2 3; do
    [ $ok = 1 ] && $P/openmp/generate -m $P/kjv.llm -t $t -n 0 --ids-file $ids --dump-logits $P/logits-omp$t.f32 2>/dev/null &&
      cmp -s $P/logits-1.f32 $P/logits-omp$t.f32 || ok=0
  done
  if [ $ok = 1 ]; then note openmp "logits of $(wc -w < $ids) positions identical without OpenMP and with 1, 2, 3 threads ($(( $(date +%s) - start )) s)"
  else note openmp "FAILED: logits differ or a run failed (see $P/openmp.build.log)"; fi
}

check_wasm() {
  want wasm || return 0
  start=$(date +%s); b=$P/wasm; mkdir -p $b
  ids=tests/data/kjv-tiny-golden
  emflags="-std=c99 -Wall -Wextra -Wpedantic -Werror -O2 -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1"
  if ! command -v emcc >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    note wasm "FAILED: emcc or node is not installed (.ci/run installs them)"
  elif ! { build/convert models/kjv-tiny $b/kjv.llm >/dev/null &&
           NODE_PATH=/usr/share/nodejs emcc $emflags -o $b/generate.js programs/generate.c programs/llm.c -lm &&
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

# m32_runs: this kernel executes 32-bit x86 programs.
m32_runs() {
  printf 'int main(void) { return 0; }\n' > $P/m32-probe.c &&
  gcc -m32 -o $P/m32-probe $P/m32-probe.c 2>/dev/null && $P/m32-probe 2>/dev/null
}

# job NAME: one entry of the queue below.
job() {
  case $1 in
    aarch64) need aarch64 "gcc-aarch64-linux-gnu, qemu-user" aarch64-linux-gnu-gcc qemu-aarch64 &&
             suite --quick aarch64 "qemu-aarch64 -L /usr/aarch64-linux-gnu" .bin CC=aarch64-linux-gnu-gcc "CFLAGS=$STRICT";;
    gcc)     suite gcc "" "" CC=gcc "CFLAGS=$STRICT"
             need g++ g++ g++ && suite --reuse gcc --quick g++ "" "" "CC=g++ -x c++" "WARN=$CXX11" TEST_CC=gcc "TEST_WARN=$C99" "CFLAGS=$STRICT";;
    # clang builds the programs (-O2 -Werror) and runs the scripts on them; its build of the
    # C tests is make test's ASan + UBSan stage (-Werror under make test-all), which runs them.
    # clang++'s warnings all come from its front end: test_build.sh compiles the header in
    # every configuration and the programs, the converter and the examples with it
    # (-fsyntax-only), and its code generator is clang's.
    clang)   need clang clang clang && suite --reuse gcc --quick clang "" "" CC=clang TEST_CC=gcc "CFLAGS=$STRICT";;
    # wine starts a wineserver with the first program and stops it 3 s after the last one
    # ends: a program started in that moment can lose it ("wine client error: recvmsg:
    # Connection reset by peer") and exit 1 before its main. One server kept for the row, and
    # the prefix (a new one on a fresh machine) set up by one program before the tests start
    # two at a time.
    windows) want windows && need windows "gcc-mingw-w64-x86-64, wine" x86_64-w64-mingw32-gcc wine wineserver || return 0
             mkdir -p "${WINEPREFIX:-$HOME/.wine}" && WINEDEBUG=-all wineserver -p
             WINEDEBUG=-all wine cmd /c exit 0 >/dev/null 2>&1
             suite --quick windows "env WINEDEBUG=-all wine" .exe CC=x86_64-w64-mingw32-gcc OPENMP=0 "CFLAGS=-O1 -Werror -static"
             wineserver -k 2>/dev/null;;
    # A kernel without IA-32 emulation runs no 32-bit program: then the row's C tests run
    # under qemu-i386, but for those that evaluate models again and again (qemu's x87 takes
    # 16 minutes of a core for them): the 32-bit sizes, file and parser checks, the ops and
    # the sampler's arithmetic stay.
    m32)     if m32_runs; then suite --quick m32 "" "" "CC=gcc -m32 -isystem $P/m32-include" "CFLAGS=-O1 -Werror"
             else need m32 qemu-user qemu-i386 &&
                  suite --quick --c-tests-but " test_reference test_step test_kernels test_generate test_state test_chat_prompt" m32 qemu-i386 .bin \
                        "CC=gcc -m32 -isystem $P/m32-include" "CFLAGS=-O1 -Werror"; fi;;
    # The three feature gates in one build (test_build.sh compiles each alone with -Werror).
    minimal) suite --quick minimal "" "" "CFLAGS=-O1 -Werror -DLLM_NO_SIMD -DLLM_NO_MMAP -DLLM_NO_THREADS" OPENMP=0;;
    openmp)  check_openmp;;
    wasm)    check_wasm;;
  esac
}

only="$*"
make --no-print-directory -s build/convert || exit 1   # the openmp and wasm checks convert with it
# gcc-multilib conflicts with the aarch64 cross compiler in Debian; libc6-dev-i386 and
# lib32gcc-12-dev make gcc -m32 work, given the kernel's asm headers (the same for both).
mkdir -p $P/m32-include && ln -sfn /usr/include/x86_64-linux-gnu/asm $P/m32-include/asm
# Two lanes (the machine has two cores; the tests of a row run two at a time too) take the
# jobs in order, each claiming the next one not yet taken (mkdir is atomic): the emulated
# row, the longest, first.
jobs="aarch64 gcc clang windows m32 minimal openmp wasm"
lane() { for j in $jobs; do mkdir $P/claim.$j 2>/dev/null && job $j; done; }
lane &
lane
wait

failed=""
for name in gcc clang g++ m32 aarch64 windows minimal openmp wasm; do
  case $name in g++) row=gcc;; *) row=$name;; esac
  want $row || continue
  # a row asked for that left no result (a full disk, a killed lane) failed
  [ -f $P/$name.result ] || note $name "FAILED: no result was written"
  [ -f $P/$name.result ] || { echo "$name       FAILED: no result could be written"; failed="$failed $name"; continue; }
  cat $P/$name.result
  head -n 1 $P/$name.result | grep -q ' FAILED' && failed="$failed $name"
done
echo "platforms:${failed:- all passed}"
[ -z "$failed" ]
