#!/bin/sh
# tests/fuzz/run.sh NAME SECONDS: runs the libFuzzer target build/fuzz/NAME for SECONDS with
# its seeds (tests/fuzz/corpus/NAME, read only) and the inputs it found before
# (build/fuzz/corpus/NAME). A crash is saved in build/fuzz/crashes/NAME/ and fails the run;
# copy it to tests/fuzz/regress/NAME/ once fixed, so the suite replays it. Prints the number
# of executions.
name=$1; secs=${2:-60}
cd "$(dirname "$0")/../.." || exit 1
mkdir -p build/fuzz/corpus/$name build/fuzz/crashes/$name build/fuzz/logs
log=build/fuzz/logs/$name.log
if [ "$name" = fuzz_json ]; then  # where it writes tokenizer.json for the converter to read
  mkdir -p build/fuzz/tmp-json; LLM_FUZZ_TMPDIR=build/fuzz/tmp-json; export LLM_FUZZ_TMPDIR
fi
if [ "$name" = fuzz_tokenizer ]; then  # the tokenizers it runs on
  make --no-print-directory -s build/convert || exit 1
  LLM_FUZZ_TOKENIZERS=$(sh tests/fuzz/tok_models.sh build build/fuzz/tok) || exit 1
  export LLM_FUZZ_TOKENIZERS
fi
build/fuzz/$name build/fuzz/corpus/$name tests/fuzz/corpus/$name \
  -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix=build/fuzz/crashes/$name/ >"$log" 2>&1
rc=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
if [ $rc -ne 0 ]; then
  echo "fuzz $name: FAILED after ${runs:-?} executions (log: $log)"
  grep -m 3 -E 'ERROR|runtime error|SUMMARY' "$log" | sed 's/^/    /'
  exit 1
fi
echo "fuzz $name: ${runs:-?} executions in ${secs} s, $cov, no crash"
