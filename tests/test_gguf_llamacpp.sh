#!/bin/sh
# GGUF import against ../shared/testdata/gguf (its README says what llama.cpp read from each
# file). For every shipped GGUF: the reader against tensors.json (metadata, tensor infos,
# raw and dequantized sha256, bit for bit: test_gguf FILE JSON); then the file converted
# with --dtype f32 (the dequantized weights, exactly) and as the converter keeps it by
# default, each run on the 32 ids of ids.txt, the logits compared with llama.cpp's:
#   --dtype f32 of a quantized file against f32w/ (llama.cpp on the same dequantized weights
#     in f32): 1e-4, the README's bound; without f32w/, against logits.f32 within the README's
#     measured gap between llama.cpp's quantized-activation logits and f32 math (check 4:
#     kjv-tiny 0.17, kq-mini 0.65, qwen2-mini 0.33);
#   F16 files against logits.f32: 0.05 (the README's bound: llama.cpp rounds activations);
#   the default conversion (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K kept as llm.h's q8_0, q4_0, q4_k,
#     q5_k, q6_k, Q5_0 and IQ4_NL held as q8_0 and Q3_K as q6_k, whose kernels round the
#     activations to 8 bits as llama.cpp's do) within the
#     same gap of f32 math on the same weights (f32w/, or the --dtype f32 import); and every tensor of it read back through llm.h's dequantization equal bit for
#     bit to llama.cpp's dequantized values (test_gguf FILE JSON LLM).
# And the models' own checkpoints: kq-mini-F16.gguf gives the logits of ../kq-mini-hf
# converted from safetensors (1e-4; F16 holds its bf16 weights but for a few subnormals), and
# the GGUF tokenizers give HF's ids and store the same chat template: every text of ../tokenizers/*/public.jsonl and of
# tests/data/text, with and without specials, through build/tokenize, the ids and the
# decoded text equal to those of the same model converted from tokenizer.json.
set -e
b=${BUILD:-build}
data=../shared/testdata
g=$data/gguf
. tests/need.sh
need_file test_gguf_llamacpp ../shared/testdata "$g/README.md" "$data/kq-mini-hf" "$data/kjv-tiny-hf" "$data/qwen2-mini-hf" || exit $need_exit
out=$b/tests/gguf_llamacpp; mkdir -p $out
fail=0; files=0; logit_checks=0; read_back=0

gap_of() { case $1 in kjv-tiny*) echo 0.17;; kq-mini*) echo 0.65;; qwen2-mini*) echo 0.33;; esac; }
vocab_of() { case $1 in qwen2-mini*) echo 151936;; *) echo 2048;; esac; }

# logits NAME LLM REFDIR TOL: the model's logits for REFDIR/ids.txt against REFDIR/logits.f32
logits() {
  $b/generate --kv-type f32 -m "$2" -n 0 --ids-file "$3/ids.txt" --dump-logits $out/$1.f32 >/dev/null 2>&1 || { echo "FAIL $1: generate"; fail=1; return; }
  printf "%s: " "$1"
  $b/tests/tool_compare $out/$1.f32 "$3/logits.f32" "$4" "$(vocab_of $1)" "$3/vocab_ids.txt" || fail=1
  logit_checks=$((logit_checks + 1))
}

# kept_vs_f32 NAME REFDIR: without f32w/, the kept file's logits against those of the same
# weights in f32 (the --dtype f32 import, which is f32w/ within 1e-4 where f32w/ exists)
# within the README's gap: the weights are the same, so what differs is the rounding of the
# activations alone (llama.cpp's logits.f32 carry its own rounding too, and the two add up).
kept_vs_f32() {
  $b/generate --kv-type f32 -m $out/$1.llm -n 0 --ids-file "$2/ids.txt" --dump-logits $out/$1.f32 >/dev/null 2>&1 || { echo "FAIL $1: generate"; fail=1; return; }
  printf "%s vs its f32 import: " "$1"
  $b/tests/tool_compare $out/$1.f32 $out/$1-f32.f32 $(gap_of $1) || fail=1
  logit_checks=$((logit_checks + 1))
}

# LLM_TEST_QUICK=1 (an emulated CPU, the sanitizers): kq-mini's files, which hold every
# type, and the two whose tokenizers are checked below; every one read and converted bit for
# bit, the logits (the same forward pass for all) of the F16, Q8_0 and Q4_K files and those two.
quick=${LLM_TEST_QUICK:-0}
files_of() {
  if [ $quick = 1 ]; then echo $g/kq-mini/*.gguf $g/kjv-tiny/kjv-tiny-Q8_0.gguf $g/qwen2-mini/qwen2-mini-Q4_0.gguf
  else echo $g/*/*.gguf; fi
}
for f in $(files_of); do
  n=$(basename $f .gguf); r=${f%.gguf}; files=$((files + 1))
  $b/tests/test_gguf $f $r/tensors.json > $out/$n.check || { grep -v '^ok' $out/$n.check; fail=1; }
  grep -o 'ok   [^ ]*: [0-9]*/[0-9]* dequantized tensors bit-exact' $out/$n.check || true
  $b/convert $f $out/$n.llm > $out/$n.log 2>&1 || { echo "FAIL $n: convert exited with $?"; cat $out/$n.log; fail=1; continue; }
  grep '^convert: GGUF' $out/$n.log | sed "s/^convert:/  $n:/"
  # quantized tensors that became f32 are named with the way to keep them small, and only then
  widened=0; grep -q '^convert: GGUF [QI][^ ]* .* -> f32 (dequantized exactly)' $out/$n.log && widened=1
  grep -q 'note: .* became f32' $out/$n.log && noted=1 || noted=0
  [ $widened = $noted ] || { echo "FAIL $n: quantized tensors widened to f32: $widened, the note about it: $noted"; fail=1; }
  $b/tests/test_gguf $f $r/tensors.json $out/$n.llm > $out/$n.back || { grep -v '^ok' $out/$n.back; fail=1; }
  grep -o 'ok   [^ ]*: [0-9]*/[0-9]* tensors read back.*' $out/$n.back && read_back=$((read_back + 1)) || true
  case $quick:$n in 1:kq-mini-F16|1:kq-mini-Q8_0|1:kq-mini-Q4_K|1:kjv-tiny-*|1:qwen2-mini-*|0:*) ;; *) continue;; esac
  $b/convert $f $out/$n-f32.llm --dtype f32 > $out/$n-f32.log 2>&1 || { echo "FAIL $n: convert --dtype f32 exited with $?"; cat $out/$n-f32.log; fail=1; continue; }
  case $n in
    *-F16|*-F32) logits $n-f32 $out/$n-f32.llm $r 0.05 ;;
    *) if [ -d $r/f32w ]; then logits $n-f32 $out/$n-f32.llm $r/f32w 1e-4; cmp -s $out/$n.llm $out/$n-f32.llm || logits $n $out/$n.llm $r/f32w $(gap_of $n)
       else logits $n-f32 $out/$n-f32.llm $r $(gap_of $n); cmp -s $out/$n.llm $out/$n-f32.llm || kept_vs_f32 $n $r; fi ;;
  esac
done

# the Q/K rows as the checkpoint has them: the same logits as from safetensors
$b/convert $data/kq-mini-hf $out/kq-mini-hf.llm --dtype f32 >/dev/null 2>&1
$b/generate --kv-type f32 -m $out/kq-mini-hf.llm -n 0 --ids-file $g/kq-mini/kq-mini-F16/ids.txt --dump-logits $out/kq-mini-hf.f32 >/dev/null 2>&1
printf "kq-mini-F16.gguf vs kq-mini-hf (safetensors): "
$b/tests/tool_compare $out/kq-mini-F16-f32.f32 $out/kq-mini-hf.f32 1e-4 || fail=1

# tokenizers: GGUF against tokenizer.json
cat $data/tokenizers/*/public.jsonl > $out/texts.jsonl
sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/{"text": "&"}/' tests/data/text/genesis1.txt >> $out/texts.jsonl
texts=$(wc -l < $out/texts.jsonl | tr -d ' ')
for pair in kjv-tiny:kjv-tiny-Q8_0 qwen2-mini:qwen2-mini-Q4_0; do
  m=${pair%%:*}; q=${pair#*:}
  $b/convert $data/$m-hf $out/$m-vocab.llm --vocab-only > $out/$m-vocab.log 2>&1
  hf_chat=$(grep 'chat template' $out/$m-vocab.log || true); gguf_chat=$(grep 'chat template' $out/$q.log || true)
  if [ "$hf_chat" = "$gguf_chat" ]; then echo "$q.gguf: $gguf_chat, as from tokenizer_config.json"
  else echo "FAIL $q.gguf: '$gguf_chat', but tokenizer_config.json gives '$hf_chat'"; fail=1; fi
  for which in hf gguf; do
    if [ $which = hf ]; then llm=$out/$m-vocab.llm; else llm=$out/$q.llm; fi
    { $b/tokenize -m $llm < $out/texts.jsonl; $b/tokenize --no-special -m $llm < $out/texts.jsonl; } > $out/$m-$which.ids
    $b/tokenize --decode -m $llm < $out/$m-$which.ids > $out/$m-$which.text
  done
  if cmp -s $out/$m-hf.ids $out/$m-gguf.ids && cmp -s $out/$m-hf.text $out/$m-gguf.text; then
    echo "$q.gguf tokenizer: the ids and decoded text of tokenizer.json for $texts texts x 2 (with and without specials)"
  else
    echo "FAIL $q.gguf tokenizer differs from tokenizer.json:"; diff $out/$m-hf.ids $out/$m-gguf.ids | head -4; fail=1
  fi
done

[ $fail = 0 ] || { echo "FAIL test_gguf_llamacpp.sh"; exit 1; }
echo "test_gguf_llamacpp.sh: $files GGUF files read bit for bit, $read_back converted files holding their values bit for bit, $logit_checks logit checks within their bounds, 2 tokenizers equal to HF's"
