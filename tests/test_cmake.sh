#!/bin/sh
# CMake: a consumer project pulls llm.h in with add_subdirectory and links llm::llm.
set -e
if ! command -v cmake >/dev/null 2>&1; then echo "cmake is not installed (.ci/run installs it)"; exit 1; fi
root=$(pwd)
work=build/tests/cmake; rm -rf $work; mkdir -p $work/app
cat > $work/app/CMakeLists.txt <<EOT
cmake_minimum_required(VERSION 3.14)
project(app C)
add_subdirectory("$root" llm)
add_executable(app main.c)
target_link_libraries(app PRIVATE llm::llm)
EOT
cat > $work/app/main.c <<'EOT'
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
int main(void) {
    printf("%s %u\n", llm_result_string(LLM_ERR_CONTEXT_FULL), (unsigned)llm_kv_cache_bytes(1, 1, 2, 3, 4));
    return 0;
}
EOT
cmake -S $work/app -B $work/out >/dev/null
cmake --build $work/out >/dev/null
out=$($work/out/app)
[ "$out" = "context full 48" ] || { echo "unexpected output: $out"; exit 1; }
# The top-level project builds its examples too.
cmake -S . -B $work/top >/dev/null && cmake --build $work/top --target generate >/dev/null
[ -x $work/top/generate ]
echo "cmake: add_subdirectory + llm::llm and the top-level example build work"
