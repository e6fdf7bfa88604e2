#!/bin/sh
# Every row of ../shared/testdata/chat-jinja (31 real chat templates, 21 conversations, as
# transformers renders them) through build/chat --render-jsonl: each text byte for byte, an
# error wherever jinja2 raises. Prints "N passed, N failed"; fails on any mismatch.
b=${BUILD:-build}
d=../shared/testdata/chat-jinja
. tests/need.sh
need_file chat_jinja ../shared/testdata $d/expected.jsonl || exit $need_exit
set -e
out=$b/tests/chat_jinja; mkdir -p $out
$b/tests/tool_jinja_rows requests $d > $out/requests.jsonl
SOURCE_DATE_EPOCH=1721952000 TZ=UTC $b/chat --render-jsonl < $out/requests.jsonl > $out/answers.jsonl
printf 'chat_jinja: '
$b/tests/tool_jinja_rows check $d $out/answers.jsonl
