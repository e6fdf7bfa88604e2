#!/bin/sh
# build/chat on each family's own model and chat template: the tiny checkpoints of
# ../shared/testdata (random weights, Mistral's tokenizer) converted with the real template of
# a model of that family from the chat sets, then
#   - --print-prompt gives the prompt that --render-jsonl renders from the template source with
#     the model's tokens (render-jsonl itself is held to transformers' texts by
#     test_chat_jinja.sh and test_chat), and it holds the family's turn markers;
#   - a two-turn chat replies twice, the second turn reusing the cached first prompt (the
#     template renders the first exchange as a prefix of the second prompt).
# OLMo 2 has no template in the chat sets and is not run here.
b=${BUILD:-build}
data=../shared/testdata
. tests/need.sh
need_file test_chat_families ../shared/testdata "$data/chat-jinja/templates.json" "$data/chat/templates.json" || exit $need_exit
set -e
out=$b/tests/chat_families; rm -rf $out; mkdir -p $out
fail() { echo "FAIL $*"; exit 1; }
turn() { sed -n 's/^chat: prompt \([0-9]*\) tokens (\([0-9]*\) reused, \([0-9]*\) evaluated.*/\1 \2 \3/p' "$1" | sed -n "$2p"; }
families=0
# family mini, chat set, template, a marker of its user turn
for row in "gemma3 chat gemma-3-1b-it <start_of_turn>user" \
           "gemma2 chat-jinja gemma-2-2b-it <start_of_turn>user" \
           "phi3 chat-jinja phi-3.5-mini-instruct <|user|>" \
           "smollm3 chat-jinja smollm3-3b <|im_start|>user" \
           "granite chat-jinja granite-3.3-2b-instruct <|start_of_role|>user<|end_of_role|>" \
           "mixtral chat mistral-7b-instruct-v0.2-legacy [INST]" \
           "qwen3moe chat qwen3 <|im_start|>user" \
           "yarn chat qwen2.5-0.5b-instruct <|im_start|>user"; do
  set -- $row; m=$1; set_=$2; t=$3; marker=$4
  d=$out/$m; mkdir -p $d
  need_file test_chat_families ../shared/testdata "$data/$m-mini-hf" || exit $need_exit
  for f in config.json model.safetensors tokenizer.json tokenizer_config.json generation_config.json; do
    ln -sf "$(cd $data/$m-mini-hf && pwd)/$f" $d/$f
  done
  $b/tests/tool_jinja_rows template $data/$set_ $t > $d/chat_template.jinja
  $b/convert $d $out/$m.llm > $out/$m.convert.log 2>&1 || { cat $out/$m.convert.log; fail "$m: convert"; }
  grep -q 'chat template' $out/$m.convert.log || fail "$m: the converter says nothing of the chat template"

  msgs='[{"role": "user", "content": "Hello!"}, {"role": "assistant", "content": "Hi there."}, {"role": "user", "content": "And then?"}]'
  printf '%s\n' "$msgs" | sed 's/^\[//; s/\]$//; s/}, {/}\n{/g' > $out/$m.conv.jsonl
  SOURCE_DATE_EPOCH=1721952000 TZ=UTC $b/chat -m $out/$m.llm --print-prompt < $out/$m.conv.jsonl > $out/$m.prompt 2> $out/$m.prompt.err ||
    fail "$m: --print-prompt: $(cat $out/$m.prompt.err)"
  # the same render from the template's source and the model's tokens
  $b/tests/tool_jinja_rows request $data/$set_ $t "$msgs" '<s>' '</s>' > $out/$m.request
  SOURCE_DATE_EPOCH=1721952000 TZ=UTC $b/chat --render-jsonl < $out/$m.request > $out/$m.answer
  $b/tests/tool_jinja_rows text $out/$m.answer > $out/$m.rendered
  cmp -s $out/$m.prompt $out/$m.rendered || fail "$m: --print-prompt differs from the template's render: $(cat $out/$m.prompt) / $(cat $out/$m.rendered)"
  grep -qF -- "$marker" $out/$m.prompt || fail "$m: no '$marker' in the prompt: $(cat $out/$m.prompt)"

  printf 'Hello!\nAnd then?\n' | $b/chat -m $out/$m.llm -t 1 -v --temp 0 -n 6 > $out/$m.chat 2> $out/$m.chat.err ||
    fail "$m: chat: $(tail -n 3 $out/$m.chat.err)"
  [ "$(wc -l < $out/$m.chat | tr -d ' ')" = 2 ] || fail "$m: expected 2 replies, got: $(cat $out/$m.chat)"
  set -- $(turn $out/$m.chat.err 1); p1=$1
  set -- $(turn $out/$m.chat.err 2); p2=$1; r2=$2
  # (the token where turn 1's prompt meets its reply may tokenize otherwise in turn 2)
  [ -n "$r2" ] && [ "$r2" -ge $((p1 - 1)) ] || fail "$m: turn 2 reused $r2 tokens of turn 1's $p1-token prompt"
  echo "$m-mini with $t: the prompt as rendered, 2 turns (turn 2: $r2 of $p2 tokens reused)"
  families=$((families + 1))
done
echo "test_chat_families: $families families chat with their templates"
