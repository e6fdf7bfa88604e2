#!/bin/sh
# The Unicode tables at the end of llm.h are what tools/gen_unicode.c makes of Debian's
# unicode-data files, and llm.h's NFC passes Unicode's NormalizationTest.txt.
# Fails when /usr/share/unicode is absent (apt-get install unicode-data; .ci/run installs it).
b=${BUILD:-build}
u=/usr/share/unicode
if [ ! -f $u/UnicodeData.txt ] || [ ! -f $u/DerivedNormalizationProps.txt ]; then echo "$u is absent: apt-get install unicode-data (.ci/run installs it)"; exit 1; fi
out=$b/tests/unicode; mkdir -p $out
${CC:-cc} -O2 -o $out/gen_unicode tools/gen_unicode.c || exit 1
$out/gen_unicode $u >$out/tables.txt || exit 1
sed -n '/^\/\* ---- llm: unicode tables/,/^\/\* end of generated unicode tables/p' llm.h | sed 1d >$out/committed.txt
if ! cmp -s $out/tables.txt $out/committed.txt; then
  echo "the tables in llm.h differ from tools/gen_unicode.c's output ($(head -1 $out/tables.txt)):"
  diff $out/committed.txt $out/tables.txt | head -5
  exit 1
fi
echo "llm.h's tables are gen_unicode's output: $(head -1 $out/tables.txt)"
if [ -f $u/NormalizationTest.txt.bz2 ] && command -v bzcat >/dev/null; then
  bzcat $u/NormalizationTest.txt.bz2 >$out/NormalizationTest.txt && $b/tests/tool_nfc $out/NormalizationTest.txt || exit 1
elif [ -f $u/NormalizationTest.txt ]; then
  $b/tests/tool_nfc $u/NormalizationTest.txt || exit 1
else
  echo "$u/NormalizationTest.txt.bz2 and bzcat are needed (packages unicode-data, bzip2)"; exit 1
fi
