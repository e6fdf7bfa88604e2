/* Every libFuzzer target in one program, so that make fuzz compiles the implementation (with
   the fuzzer's and the sanitizers' instrumentation, over a minute a copy) once rather than
   once per target. build/fuzz/NAME is a copy of it that fuzzes NAME, chosen by its own name
   in LLVMFuzzerInitialize; each tests/fuzz/NAME.c still builds alone. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TARGETS(X) X(fuzz_gguf) X(fuzz_jinja) X(fuzz_json) X(fuzz_model) X(fuzz_safetensors) X(fuzz_sampler) X(fuzz_tokenizer)

#define LLVMFuzzerTestOneInput fuzz_gguf_one
#include "fuzz_gguf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_jinja_one
#include "fuzz_jinja.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_json_one
#include "fuzz_json.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_model_one
#include "fuzz_model.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_safetensors_one
#include "fuzz_safetensors.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_sampler_one
#include "fuzz_sampler.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tokenizer_one
#include "fuzz_tokenizer.c"
#undef LLVMFuzzerTestOneInput

typedef struct {
    const char *name;
    int (*one)(const uint8_t *data, size_t size);
} fuzz_target;
#define FUZZ_ENTRY(n) { #n, n##_one },
static const fuzz_target fuzz_targets[] = { TARGETS(FUZZ_ENTRY) };
static int (*fuzz_chosen)(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The target named by argv[0] without its directory. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const char *s = *argc > 0 ? (*argv)[0] : "", *p;
    size_t i;
    for (p = s; *p; p++)
        if (*p == '/') s = p + 1;
    for (i = 0; i < sizeof fuzz_targets / sizeof fuzz_targets[0]; i++)
        if (!strcmp(fuzz_targets[i].name, s)) fuzz_chosen = fuzz_targets[i].one;
    if (!fuzz_chosen) { fprintf(stderr, "fuzz: no target named %s (the program fuzzes the target of its own name)\n", s); exit(2); }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_chosen(data, size); }
