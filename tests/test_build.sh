#!/bin/sh
# Build checks: llm.h compiles with no warnings (-Werror) as C99 under gcc and clang
# (-std=c99 -Wall -Wextra -Wpedantic), with and without OpenMP, as C++11 under g++ and
# clang++ (and the programs, the converter and the examples under clang++), and with each
# of LLM_NO_MMAP, LLM_NO_SIMD (with -march=native), LLM_NO_THREADS, LLM_NO_STDIO and
# LLM_STATIC (make test-platforms runs the suite with the first three together); a C++
# program links against the implementation compiled as C (extern "C"), two files link with
# one implementation, and the implementation may be included twice. Last,
# tools/gen_model writes the same bytes and the sampler computes the same numbers when
# built by gcc and by clang.
. tests/need.sh
out=build/tests/build
mkdir -p $out
fail=0; pass=0

cat > $out/impl.c <<'SRC'
#define LLM_IMPLEMENTATION
#include "../../../llm.h"
#include "../../../llm.h"
int main(int argc, char **argv) {
    llm_model *m = 0;
    llm_result r = llm_model_open_memory(&m, argv[0], (size_t)argc, 0);
    llm_model_close(m);
    return llm_result_string(r)[0] == 0;
}
SRC
cat > $out/user.c <<'SRC'
#include "../../../llm.h"
int user_call(void);
int user_call(void) { return llm_result_string(LLM_OK)[0] == 'o' && llm_f32_to_bf16(1.0f) == 0x3f80; }
SRC
cat > $out/lib.c <<'SRC'
#define LLM_IMPLEMENTATION
#include "../../../llm.h"
SRC
cat > $out/main.cc <<'SRC'
#include "../../../llm.h"
int main() { return llm_f16_to_f32(llm_f32_to_f16(2.0f)) == 2.0f ? 0 : 1; }
SRC

run() { # description, command...
  desc=$1; shift
  if "$@" >$out/log 2>&1; then pass=$((pass+1)); echo "ok   $desc"
  else fail=$((fail+1)); echo "FAIL $desc: $*"; sed 's/^/    /' $out/log | head -20; fi
}

W="-Wall -Wextra -Wpedantic -Werror"
CONFIGS="-fopenmp -DLLM_NO_MMAP -march=native,-DLLM_NO_SIMD -DLLM_NO_THREADS -DLLM_NO_STDIO -DLLM_STATIC -DLLM_STATIC,-DLLM_NO_STDIO,-DLLM_NO_MMAP"
# The plain build once at -O1 (gcc's maybe-uninitialized needs the optimiser), the
# configurations at -O0 (unused-function and the rest need no optimiser; clang's warnings
# all come from its front end, and what C++ adds to C, its type rules, from g++'s).
for compiler in "gcc -std=c99" "clang -std=c99" "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11"; do
  cc=${compiler%% *}
  std=$(echo "$compiler" | grep -o -- '-std=[^ ]*')
  case $cc in clang*) pkg=clang;; *) pkg=$cc;; esac
  need "test_build ($cc rows)" $pkg $cc || { [ $need_exit = 0 ] || fail=$((fail+1)); continue; }
  case $cc in clang*) opt="-fsyntax-only"; quick="-fsyntax-only";; g++) opt="-O1 -c -o $out/impl.o"; quick="-fsyntax-only";;
                 *) opt="-O1 -c -o $out/impl.o"; quick="-O0 -c -o $out/impl.o";; esac
  run "$cc $std" $compiler $W $opt $out/impl.c
  for cfg in $CONFIGS; do
    flags=$(echo "$cfg" | tr ',' ' ')
    run "$cc $std $flags" $compiler $W $quick $flags $out/impl.c
  done
done
# The programs, the converter and the examples as C++ by clang++, warning-free (g++ builds and
# runs them in make test-platforms; clang++'s warnings all come from its front end).
if command -v clang++ >/dev/null 2>&1; then
  for f in programs/*.c tools/convert.c tools/gen_model.c examples/*.c; do
    run "clang++ -std=c++11 $f" clang++ -x c++ -std=c++11 $W -fsyntax-only $f
  done
fi
run "two C files, one with the implementation, link" sh -c \
  "gcc -std=c99 $W -c $out/lib.c -o $out/lib.o && gcc -std=c99 $W -c $out/user.c -o $out/user.o &&
   gcc -std=c99 $W -c $out/impl.c -o $out/impl.o && gcc $out/impl.o $out/user.o -o $out/a -lm && $out/a"
command -v g++ >/dev/null 2>&1 &&
run "a C++ program linked with the implementation compiled as C" sh -c \
  "g++ -std=c++11 $W -c $out/main.cc -o $out/main.o && g++ $out/main.o $out/lib.o -o $out/b -lm && $out/b"
# The test-model generator gives the same bytes whatever the compiler and whether it fuses
# multiply-adds (gcc -O2 -ffp-contract=fast fuses them; clang -O0 with off does not).
# (Both link one build of the implementation: the generator's own arithmetic is what differs.)
same_model() {
  clang -std=c99 -O0 -c -o $out/llm_o0.o programs/llm.c &&
  gcc -std=c99 -O2 -ffp-contract=fast $ARCH -o $out/gen_gcc tools/gen_model.c $out/llm_o0.o -lm &&
  clang -std=c99 -O0 -ffp-contract=off $ARCH -o $out/gen_clang tools/gen_model.c $out/llm_o0.o -lm &&
  $out/gen_gcc $out/m_gcc --variant qwen3 --seed 3 >/dev/null && $out/gen_clang $out/m_clang --variant qwen3 --seed 3 >/dev/null &&
  cmp $out/m_gcc/model.safetensors $out/m_clang/model.safetensors && cmp $out/m_gcc/config.json $out/m_clang/config.json
}
ARCH=$(gcc -march=native -E - </dev/null >/dev/null 2>&1 && echo -march=native)
command -v clang >/dev/null 2>&1 &&
run "gen_model: the same bytes built by gcc (FMA contraction) and clang (none) $ARCH" same_model
# The sampler's arithmetic is the same whatever the compiler fuses: exp of a million
# arguments, the cut-off masses of top-p, and a thousand draws with penalties, hashed, from
# gcc fusing across statements (-ffp-contract=fast, as in -std=gnu99), clang fusing within
# expressions (its default) and clang at -O0 with no fusing.
cat > $out/sampler_bits.c <<'SRC'
#define LLM_IMPLEMENTATION
#include "../../../llm.h"
#include <stdio.h>
#include <stdlib.h>
static uint64_t st = 88, h = 1469598103934665603u;
static double urand(void) { st = st * 6364136223846793005u + 1442695040888963407u; return (double)(st >> 11) / 9007199254740992.0; }
static void mix(const void *p, size_t n) { const unsigned char *b = (const unsigned char *)p; while (n--) { h ^= *b++; h *= 1099511628211u; } }
int main(void) {
    enum { NV = 5000 };
    static float lg[NV];
    const int32_t recent[8] = { 1, 2, 3, 3, 4, 4, 4, 9 };
    void *sc = malloc(llm_sample_scratch_bytes(NV));
    int i, j;
    for (i = 0; i < 1000000; i++) { double y = llm__exp_neg(-745.0 * urand() * urand()); mix(&y, sizeof y); }
    for (i = 0; i < 1000; i++) {
        llm_sampler s;
        double total, inv_t;
        int32_t id;
        int b;
        for (j = 0; j < NV; j++) lg[j] = (float)(urand() * 30.0 - 15.0);
        memset(&s, 0, sizeof s);
        s.temperature = (float)(0.3 + urand()); s.top_p = (float)(0.5 + 0.5 * urand()); s.top_k = i % 3 ? 0 : 40;
        s.min_p = i % 5 ? 0.0f : 0.05f; s.seed = (uint64_t)i;
        s.repeat_penalty = 1.1f; s.frequency_penalty = 0.1f; s.presence_penalty = 0.2f;
        inv_t = 1.0 / (double)s.temperature;
        b = llm__cutoff_bucket(&s, lg, NV, inv_t, (double)lg[llm__argmax(lg, NV)] * inv_t, &total);
        llm_sample_logits(&s, lg, NV, recent, 8, sc, &id);
        mix(&b, sizeof b); mix(&total, sizeof total); mix(&id, sizeof id);
    }
    printf("%016llx\n", (unsigned long long)h);
    free(sc);
    return 0;
}
SRC
same_draws() {
  gcc -std=c99 -O2 -ffp-contract=fast $ARCH -o $out/sb_gcc $out/sampler_bits.c -lm &&
  clang -std=c99 -O2 $ARCH -o $out/sb_clang $out/sampler_bits.c -lm &&
  clang -std=c99 -O0 -ffp-contract=off -o $out/sb_plain $out/sampler_bits.c -lm &&
  $out/sb_gcc > $out/sb_gcc.txt && $out/sb_clang > $out/sb_clang.txt && $out/sb_plain > $out/sb_plain.txt &&
  cmp $out/sb_gcc.txt $out/sb_plain.txt && cmp $out/sb_clang.txt $out/sb_plain.txt
}
command -v clang >/dev/null 2>&1 &&
run "sampler: the same arithmetic built by gcc and clang with and without fused multiply-adds $ARCH" same_draws
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
