#!/bin/sh
# CMake: a consumer project gets llm::llm three ways (add_subdirectory, FetchContent, and
# find_package(llm CONFIG) after an install, by make install and by cmake --install), each
# builds and runs a program; find_package refuses an incompatible version; the top-level
# project builds its programs and examples, optimised by default.
. tests/need.sh
need test_cmake cmake cmake || exit $need_exit
root=$(pwd)
work=build/tests/cmake; rm -rf $work; mkdir -p $work
fail=0
# check DESCRIPTION COMMAND...: runs it quietly; on failure prints what it printed.
check() {
  d=$1; shift
  if "$@" >$work/log 2>&1; then echo "ok   $d"; else fail=1; echo "FAIL $d: $*"; sed 's/^/    /' $work/log | tail -n 20; fi
}
cat > $work/main.c <<'EOT'
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
int main(void) {
    printf("%s %u\n", llm_result_string(LLM_ERR_CONTEXT_FULL), (unsigned)llm_kv_cache_bytes(1, 1, 2, 3, 4));
    return 0;
}
EOT
# consumer NAME LINES: a project whose CMakeLists.txt gets llm::llm by LINES, built and run.
consumer() {
  mkdir -p $work/$1 && cp $work/main.c $work/$1/ &&
  printf 'cmake_minimum_required(VERSION 3.14)\nproject(app C)\n%s\nadd_executable(app main.c)\ntarget_link_libraries(app PRIVATE llm::llm)\n' "$2" > $work/$1/CMakeLists.txt &&
  cmake -S $work/$1 -B $work/$1/out $3 && cmake --build $work/$1/out &&
  out=$($work/$1/out/app) && [ "$out" = "context full 48" ] || { echo "expected 'context full 48', got '$out'"; return 1; }
}
check "add_subdirectory" consumer sub "add_subdirectory(\"$root\" llm)"
check "FetchContent" consumer fetch "include(FetchContent)
FetchContent_Declare(llm SOURCE_DIR \"$root\")
FetchContent_MakeAvailable(llm)"
check "make install, then find_package(llm CONFIG)" sh -c \
  "make -s install PREFIX=$root/$work/prefix-make >/dev/null && rm -rf $root/$work/find-make"
check "  ... builds against it" consumer find-make "find_package(llm 0.1 CONFIG REQUIRED)" "-DCMAKE_PREFIX_PATH=$root/$work/prefix-make"
check "cmake --install, then find_package(llm CONFIG)" sh -c \
  "cmake -S . -B $work/top -DLLM_BUILD_EXAMPLES=OFF && cmake --install $work/top --prefix $root/$work/prefix-cmake"
check "  ... builds against it" consumer find-cmake "find_package(llm CONFIG REQUIRED)" "-DCMAKE_PREFIX_PATH=$root/$work/prefix-cmake"
# An installed package names no path of the machine it was built on but its own prefix.
check "the installed package files name no build path" sh -c "! grep -rl '$root/CMakeLists\|$root/llm.h' $work/prefix-make/lib $work/prefix-cmake/lib"
refuse_version() {
  ! consumer find-old "find_package(llm 1.0 CONFIG REQUIRED)" "-DCMAKE_PREFIX_PATH=$root/$work/prefix-make"
}
check "find_package(llm 1.0) is refused by 0.1" refuse_version
# The top-level project builds its programs and examples, as Release when no build type is
# given.
top_example() {
  cmake -S . -B $work/top-ex && cmake --build $work/top-ex --target generate && [ -x $work/top-ex/generate ] &&
  cmake --build $work/top-ex --target simple && [ -x $work/top-ex/simple ] &&
  grep -q '^CMAKE_BUILD_TYPE:STRING=Release' $work/top-ex/CMakeCache.txt
}
check "top-level program and example build (Release by default)" top_example
[ $fail = 0 ] && echo "cmake: add_subdirectory, FetchContent and find_package(llm CONFIG) work"
exit $fail
