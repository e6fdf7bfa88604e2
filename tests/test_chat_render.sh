#!/bin/sh
# build/chat without ../shared: --render-jsonl answers each request line in order (texts,
# errors, a null bos_token left undefined, documents none by default, a bad line an error
# that does not stop the rest), and --print-prompt renders --jinja-file's template with
# --tools and messages carrying tool_calls, byte for byte.
b=${BUILD:-build}
set -e
out=$b/tests/chat_render; mkdir -p $out
fail() { echo "FAIL: $*"; exit 1; }
cat > $out/req.jsonl <<'JSONL'
{"template": "{{ bos_token is defined }}|{{ documents }}|{{ messages[0].content|upper }}", "messages": [{"role": "user", "content": "h\u00e9"}], "bos_token": null}
{"template": "{{ raise_exception('no') }}", "messages": []}
this is not JSON
{"template": "{% for m in messages %}{{ m.role }}:{{ m.content }}\n{% endfor %}{{ tools|tojson }}", "messages": [{"role": "user", "content": "a\"b"}], "tools": [{"x": 1.5}], "documents": [1]}
{"template": "{{ x", "messages": []}
JSONL
$b/chat --render-jsonl < $out/req.jsonl | tr -d '\r' > $out/ans.jsonl  # Windows: \r\n
cat > $out/want.jsonl <<'JSONL'
{"text": "False|None|HÉ"}
{"error": "no"}
{"text": "user:a\"b\n[{\"x\": 1.5}]"}
JSONL
sed -n '1p;2p;4p' $out/ans.jsonl | cmp -s - $out/want.jsonl || { sed -n '1p;2p;4p' $out/ans.jsonl | diff $out/want.jsonl -; fail "render-jsonl answers"; }
[ "$(sed -n 3p $out/ans.jsonl | cut -c1-10)" = '{"error": ' ] || fail "a line that is not JSON is an error: $(sed -n 3p $out/ans.jsonl)"
[ "$(sed -n 5p $out/ans.jsonl | cut -c1-10)" = '{"error": ' ] || fail "an unclosed tag is an error: $(sed -n 5p $out/ans.jsonl)"
[ "$(wc -l < $out/ans.jsonl | tr -d ' ')" = 5 ] || fail "one answer per request"
echo "ok   --render-jsonl: 5 requests, 5 answers"

$b/convert models/kjv-tiny $out/kjv.llm > $out/convert.log 2>&1
printf '%s' '{{ bos_token }}{% for m in messages %}<{{ m.role }}>{% if m.tool_calls %}{{ m.tool_calls[0].function.name }}({{ m.tool_calls[0].function.arguments|tojson }}){% else %}{{ m.content }}{% endif %}{% endfor %}{% if tools %}[{{ tools|map(attribute="function.name")|join(",") }}]{% endif %}{% if add_generation_prompt %}<assistant>{% endif %}' > $out/t.jinja
printf '[{"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "g"}}]' > $out/tools.json
printf '{"role": "user", "content": "Hi"}\n{"role": "assistant", "content": null, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": [1, "x"]}}}]}\n' > $out/conv.jsonl
$b/chat -m $out/kjv.llm --print-prompt --jinja-file $out/t.jinja --tools $out/tools.json < $out/conv.jsonl > $out/prompt.txt
printf '%s' '<s><user>Hi<assistant>f({"a": [1, "x"]})[f,g]<assistant>' > $out/want.txt
cmp -s $out/prompt.txt $out/want.txt || fail "--jinja-file, --tools: '$(cat $out/prompt.txt)'"
rc=0; printf '{"role": "user", "content": "Hi"}\n' | $b/chat -m $out/kjv.llm --print-prompt --jinja-file $out/t.jinja --tools $out/conv.jsonl > $out/o 2> $out/e || rc=$?
[ $rc = 1 ] && grep -q 'JSON\|bad' $out/e || fail "--tools with a file that is not one JSON value: status $rc, $(cat $out/e)"
printf '{{ raise_exception("roles must alternate") }}' > $out/bad.jinja
rc=0; printf '{"role": "user", "content": "Hi"}\n' | $b/chat -m $out/kjv.llm --print-prompt --jinja-file $out/bad.jinja > $out/o 2> $out/e || rc=$?
[ $rc = 1 ] && [ ! -s $out/o ] && grep -q 'roles must alternate' $out/e || fail "a template's error: status $rc, $(cat $out/e)"
echo "ok   --print-prompt with --jinja-file and --tools"
echo "chat render: all cases behave"
