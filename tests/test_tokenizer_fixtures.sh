#!/bin/sh
# Tokenizers that need nothing outside the repository: small tokenizer.json files cut from
# real ones, with the ids and text HuggingFace tokenizers gives (tests/data/tokenizers/README.md),
# through build/convert --vocab-only and build/tokenize. Then the same files with their
# pre-tokenizer written another way that splits the same (the ids must stay HF's), and
# tokenizer.json files that must be refused, each with a message that quotes what is not
# supported.
b=${BUILD:-build}
out=$b/tests/tokenizer_fixtures; mkdir -p $out
cmp=$b/tests/tool_jsoncmp
fail=0
for dir in tests/data/tokenizers/*/; do
  name=$(basename "$dir")
  if ! $b/convert --vocab-only "$dir" $out/$name.llm >$out/$name.log 2>&1; then
    echo "$name: convert failed:"; cat $out/$name.log; fail=1; continue
  fi
  tok="$b/tokenize -m $out/$name.llm"
  v=$dir/vectors.jsonl; d=$dir/decode.jsonl
  $tok <$v >$out/$name.a; $cmp $v ids $out/$name.a ids "$name encode" || fail=1
  $tok --no-special <$v >$out/$name.b; $cmp $v ids_nospecial $out/$name.b ids "$name encode --no-special" || fail=1
  $tok --split-special <$v >$out/$name.c; $cmp $v ids_split_special $out/$name.c ids "$name encode --split-special" || fail=1
  $tok --decode <$v >$out/$name.d; $cmp $v decoded $out/$name.d text "$name decode" || fail=1
  $tok --decode --skip-special <$v >$out/$name.e; $cmp $v decoded_skip_special $out/$name.e text "$name decode --skip-special" || fail=1
  $tok --decode <$d >$out/$name.f; $cmp $d decoded $out/$name.f text "$name decode (ids)" || fail=1
  $tok --decode --skip-special <$d >$out/$name.g; $cmp $d decoded_skip_special $out/$name.g text "$name decode --skip-special (ids)" || fail=1
done

# subst FROM TO: stdin with every FROM replaced by TO, both taken literally
subst() { FROM="$1" TO="$2" awk '{ o = ""; while ((i = index($0, ENVIRON["FROM"])) > 0) { o = o substr($0, 1, i - 1) ENVIRON["TO"]; $0 = substr($0, i + length(ENVIRON["FROM"])) } print o $0 }'; }

# same NAME DIR STEPS: tokenizer.json in $out/same/NAME, a rewriting of fixture DIR, must
# convert with the pre-tokenizer STEPS (as convert describes them) and give DIR's HF ids.
same() {
  d=$out/same/$1; v=tests/data/tokenizers/$2/vectors.jsonl
  if cmp -s $d/tokenizer.json tests/data/tokenizers/$2/tokenizer.json; then echo "FAIL: $1: the rewriting changed nothing"; fail=1; return; fi
  if ! $b/convert --vocab-only $d $out/same/$1.llm >$out/same/$1.log 2>&1 || ! grep -qF -- "pre-tokenizer $3," $out/same/$1.log; then
    echo "FAIL: $1 did not convert with pre-tokenizer $3:"; cat $out/same/$1.log; fail=1; return
  fi
  $b/tokenize -m $out/same/$1.llm <$v >$out/same/$1.a; $cmp $v ids $out/same/$1.a ids "$1 encode" || fail=1
  $b/tokenize -m $out/same/$1.llm --split-special <$v >$out/same/$1.b; $cmp $v ids_split_special $out/same/$1.b ids "$1 encode --split-special" || fail=1
}
mkdir -p $out/same/tiktoken $out/same/split_string
# Llama 3's regex as tiktoken writes it (possessive quantifiers, '(?i:[sdmt]|ll|ve|re),
# \s*[\r\n]; Granite 4 and others ship such spellings): llm.h's regex matcher, not its scanner
subst "(?i:'s|'t|'re|'ve|'m|'ll|'d)" "'(?i:[sdmt]|ll|ve|re)" <tests/data/tokenizers/bl_llama3/tokenizer.json |
  subst '\\p{N}]?\\p{L}+' '\\p{N}]?+\\p{L}+' | subst '\\p{N}]+[\\r\\n]*' '\\p{N}]++[\\r\\n]*' |
  subst '\\s*[\\r\\n]+|' '\\s*[\\r\\n]|' >$out/same/tiktoken/tokenizer.json
same tiktoken bl_llama3 "Split regex"
# Gemma 3's layout: a Split(" ") after a normalizer that leaves no space never cuts
subst '"pre_tokenizer":null' '"pre_tokenizer":{"type":"Split","pattern":{"String":" "},"behavior":"MergedWithPrevious","invert":false}' \
  <tests/data/tokenizers/spm_legacy/tokenizer.json >$out/same/split_string/tokenizer.json
same split_string spm_legacy "Split regex"
# The byte-level fixtures whose added tokens are plain special ones as the GGUF files
# convert_hf_to_gguf.py --vocab-only writes, with llama.cpp's name for their pre-tokenizer
# (tests/tool_gguf_write --tokenizer), converted back: still HF's ids and text. (bl_qwen2's
# added tokens are lstrip, rstrip, single_word and normalized, which GGUF has no place for.)
mkdir -p $out/gguf
for p in "bl_gpt2 gpt-2" "bl_llama3 llama-bpe" "bl_starcoder smollm" "bl_starcoder starcoder" "bl_starcoder refact" \
         "bl_deepseek deepseek-llm" "bl_deepseek_coder deepseek-coder"; do
  set -- $p; g=$out/gguf/$1-$2; v=tests/data/tokenizers/$1/vectors.jsonl
  if ! { $b/tests/tool_gguf_write --tokenizer $out/$1.llm $g.gguf $2 && $b/convert $g.gguf $g.llm; } >$g.log 2>&1; then
    echo "FAIL: $1 as a GGUF file with tokenizer.ggml.pre $2:"; cat $g.log; fail=1; continue
  fi
  $b/tokenize -m $g.llm <$v >$g.a; $cmp $v ids $g.a ids "$1 as GGUF ($2) encode" || fail=1
  $b/tokenize -m $g.llm --no-special <$v >$g.b; $cmp $v ids_nospecial $g.b ids "$1 as GGUF ($2) encode --no-special" || fail=1
  $b/tokenize -m $g.llm --decode <$v >$g.c; $cmp $v decoded $g.c text "$1 as GGUF ($2) decode" || fail=1
done

# refuse DIR FROM TO EXPECTED: the fixture with FROM replaced by TO must not convert, and the
# message must contain EXPECTED.
refuse() {
  mkdir -p $out/refuse
  sed "s/$2/$3/" tests/data/tokenizers/$1/tokenizer.json >$out/refuse/tokenizer.json
  if grep -q "$3" $out/refuse/tokenizer.json && ! $b/convert --vocab-only $out/refuse $out/refuse.llm >$out/refuse.log 2>&1 &&
     grep -qF -- "$4" $out/refuse.log; then
    echo "refused: $(grep 'convert: tokenizer.json' $out/refuse.log | cut -c1-150)"
  else
    echo "FAIL: '$3' in $1 was not refused with a message containing '$4':"; cat $out/refuse.log; fail=1
  fi
}
refuse bl_llama3 '\\\\p{N}{1,3}' '\\\\d{1,3}' "llm.h's regex matcher does not take an unsupported escape \\d at byte"
refuse bl_llama3 '\\\\s+(?!' '\\\\s+(?<!' 'does not take an unsupported (? group at byte'
refuse bl_llama3 '"behavior":"Isolated"' '"behavior":"Merged"' 'Split behavior "Merged" is not known'
refuse bl_gpt2 '"normalizer":null' '"normalizer":{"type":"Lowercase"}' 'normalizer {"type":"Lowercase"}'
refuse bl_qwen2 '{"type":"NFC"}' '{"type":"NFKC"}' 'normalizer {"type":"NFKC"}'
refuse spm_legacy '"type":"BPE"' '"type":"WordPiece"' 'model type "WordPiece"'
refuse spm_legacy '{"type":"Fuse"},' '' 'decoder {"type":"Sequence"'
refuse spm_legacy '"type":"ByteFallback"' '"type":"CTC"' 'not supported'
refuse bl_gpt2 '"post_processor":{"type":"ByteLevel"' '"post_processor":{"type":"BertProcessing"' 'post_processor {"type":"BertProcessing"'
refuse bl_digits '"type":"Digits"' '"type":"Punctuation"' 'pre_tokenizer {"type":"Punctuation"'
refuse spm_metaspace '"replacement":"▁"' '"replacement":"_"' 'Metaspace replacement "_"'
refuse spm_legacy '"dropout":null' '"dropout":0.1' 'dropout 0.1'

# a directory without tokenizer.json: --vocab-only has nothing to write
mkdir -p $out/empty
if $b/convert --vocab-only $out/empty $out/empty.llm >$out/empty.log 2>&1 || ! grep -q "tokenizer.json" $out/empty.log; then
  echo "FAIL: --vocab-only without tokenizer.json"; fail=1
fi
exit $fail
