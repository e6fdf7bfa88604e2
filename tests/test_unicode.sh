#!/bin/sh
# The Unicode tables at the end of llm.h are what tools/gen_unicode.c makes of Debian's
# unicode-data files with tools/ucd16-delta.txt's Unicode 16.0 categories on top, and llm.h's
# NFC passes Unicode's NormalizationTest.txt.
# Needs the packages unicode-data and bzip2 (tests/need.sh: skipped by make test without them).
. tests/need.sh
b=${BUILD:-build}
u=/usr/share/unicode
need_file test_unicode unicode-data $u/UnicodeData.txt $u/DerivedNormalizationProps.txt $u/DerivedAge.txt $u/NormalizationTest.txt.bz2 || exit $need_exit
need test_unicode bzip2 bzcat || exit $need_exit
out=$b/tests/unicode; mkdir -p $out
${CC:-cc} -O2 -o $out/gen_unicode tools/gen_unicode.c || exit 1
$out/gen_unicode $u tools/ucd16-delta.txt >$out/tables.txt || exit 1
sed -n '/^\/\* ---- llm: unicode tables/,/^\/\* end of generated unicode tables/p' llm.h | sed 1d >$out/committed.txt
if ! cmp -s $out/tables.txt $out/committed.txt; then
  echo "the tables in llm.h differ from tools/gen_unicode.c's output ($(head -1 $out/tables.txt)):"
  diff $out/committed.txt $out/tables.txt | head -5
  exit 1
fi
echo "llm.h's tables are gen_unicode's output: $(head -1 $out/tables.txt)"
bzcat $u/NormalizationTest.txt.bz2 >$out/NormalizationTest.txt && $b/tests/tool_nfc $out/NormalizationTest.txt $u/DerivedAge.txt || exit 1
