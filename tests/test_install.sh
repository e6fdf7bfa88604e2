#!/bin/sh
# make install / uninstall into a staging directory, then build a program against the
# installed header through pkg-config.
set -e
stage=$(pwd)/build/tests/stage; rm -rf "$stage"
make -s install PREFIX=/opt/llm DESTDIR="$stage" >/dev/null
test -f "$stage/opt/llm/include/llm.h"
test -x "$stage/opt/llm/bin/llm-convert"
test -x "$stage/opt/llm/bin/llm-generate"
test -x "$stage/opt/llm/bin/llm-perplexity"
pc="$stage/opt/llm/lib/pkgconfig/llm.pc"
grep -q '^prefix=/opt/llm$' "$pc"
grep -q -- '-lm' "$pc"
if ! command -v pkg-config >/dev/null 2>&1; then echo "pkg-config is not installed (.ci/run installs it)"; exit 1; fi
{
  flags=$(PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_LIBDIR="$stage/opt/llm/lib/pkgconfig" pkg-config --cflags --libs llm)
  printf '#define LLM_IMPLEMENTATION\n#include "llm.h"\nint main(void){return llm_result_string(LLM_OK)[0]!=0x6f;}\n' > build/tests/pc_main.c
  ${CC:-cc} -std=c99 -o build/tests/pc_main build/tests/pc_main.c $flags
  build/tests/pc_main
}
make -s uninstall PREFIX=/opt/llm DESTDIR="$stage" >/dev/null
test ! -e "$stage/opt/llm/include/llm.h"
test ! -e "$stage/opt/llm/bin/llm-convert"
test ! -e "$pc"
echo "install and uninstall work"
