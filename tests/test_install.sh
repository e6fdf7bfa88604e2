#!/bin/sh
# make install / uninstall into a staging directory, then a program built against the
# installed header through pkg-config. llm.pc is written for the PREFIX of each install, so
# installing for one prefix and then another gives each its own (the other order too).
. tests/need.sh
dir=build/tests/install; stage=$(pwd)/$dir/stage; rm -rf "$dir"; mkdir -p "$dir"
fail=0
# expect DESCRIPTION COMMAND...: COMMAND must succeed; otherwise say what was expected.
expect() { d=$1; shift; if "$@"; then :; else echo "FAIL expected $d (command: $*)"; fail=1; fi; }
# pc_prefix PREFIX: the prefix line of the llm.pc installed for PREFIX is PREFIX.
pc_prefix() {
  got=$(grep '^prefix=' "$stage$1/lib/pkgconfig/llm.pc" 2>&1)
  [ "$got" = "prefix=$1" ] || { echo "    $stage$1/lib/pkgconfig/llm.pc: expected 'prefix=$1', got '$got'"; return 1; }
}
for prefix in /opt/llm /usr/local /opt/llm; do
  expect "make install PREFIX=$prefix to succeed" make -s install PREFIX=$prefix DESTDIR="$stage" >/dev/null
  expect "llm.pc for $prefix after installing for it" pc_prefix $prefix
done
expect "the header installed" test -f "$stage/opt/llm/include/llm.h"
for p in convert generate chat perplexity tokenize bench; do
  expect "the program llm-$p installed" test -x "$stage/opt/llm/bin/llm-$p"
done
pc="$stage/opt/llm/lib/pkgconfig/llm.pc"
expect "-lm in llm.pc's Libs" grep -q -- '^Libs:.*-lm' "$pc"
expect "the CMake package files installed" test -f "$stage/opt/llm/lib/cmake/llm/llmConfig.cmake" -a -f "$stage/opt/llm/lib/cmake/llm/llmConfigVersion.cmake"
if need "test_install (pkg-config)" pkgconf pkg-config; then
  flags=$(PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_LIBDIR="$stage/opt/llm/lib/pkgconfig" pkg-config --cflags --libs llm)
  expect "pkg-config to give -I$stage/opt/llm/include (got: $flags)" sh -c "echo ' $flags ' | grep -q -- ' -I$stage/opt/llm/include '"
  printf '#define LLM_IMPLEMENTATION\n#include "llm.h"\nint main(void){return llm_result_string(LLM_OK)[0]!=0x6f;}\n' > $dir/pc_main.c
  expect "a program to build with pkg-config's flags ($flags)" ${CC:-cc} -std=c99 -o $dir/pc_main $dir/pc_main.c $flags
  expect "that program to run" $dir/pc_main
elif [ $need_exit = 1 ]; then fail=1; fi
for prefix in /opt/llm /usr/local; do
  expect "make uninstall PREFIX=$prefix to succeed" make -s uninstall PREFIX=$prefix DESTDIR="$stage" >/dev/null
  for f in include/llm.h bin/llm-convert lib/pkgconfig/llm.pc lib/cmake/llm/llmConfig.cmake; do
    expect "$prefix/$f removed by uninstall" test ! -e "$stage$prefix/$f"
  done
done
[ $fail = 0 ] && echo "install and uninstall work, llm.pc for each prefix"
exit $fail
