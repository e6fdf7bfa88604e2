#!/bin/sh
# The k-quant types hold ggml's values: every Q4_K, Q5_K and Q6_K tensor of llama.cpp's own
# GGUF files (../shared/testdata/gguf: kq-mini's pure Q4_K, Q5_K and Q6_K files and
# kjv-tiny's Q4_K_M mix), re-laid out by llm_q4_k_from_ggml / llm_q5_k_from_ggml /
# llm_q6_k_from_ggml and read back by llm.h, gives bit for bit the leading rows llama.cpp
# dequantizes (tensors.f32, checked there against ggml's C dequantizer).
set -e
. tests/need.sh
g=../shared/testdata/gguf
need_file test_kquant_gguf "../shared/testdata/gguf" $g/kq-mini/kq-mini-Q4_K.gguf $g/kjv-tiny/kjv-tiny-Q4_K_M.gguf || exit $need_exit
for f in kq-mini/kq-mini-Q4_K kq-mini/kq-mini-Q5_K kq-mini/kq-mini-Q6_K kjv-tiny/kjv-tiny-Q4_K_M; do
  build/tests/tool_kq_gguf --check $g/$f.gguf $g/$f/tensors.f32 4
done
