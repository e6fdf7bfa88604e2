/* The tests, tools and fuzz targets (their replay programs: tests/fuzz/replay.c) that reach
   llm.h's internals (they define LLM_IMPLEMENTATION), compiled as one program, so that a build compiles the 12,500-line implementation once rather than once per
   test: that was most of each platform row's build time. The Makefile copies the program to
   build/tests/NAME for each test, and the copy runs NAME's main, chosen by its own name.
   Each tests/NAME.c still builds alone (cc tests/test_ops.c -lm), so its static names and
   macros must not clash with another's: a clash fails this file's build. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise (tool_gguf_write) */
#define _FILE_OFFSET_BITS 64

#define TESTS(X) X(test_badfile, 0) X(test_bigfile, 0) X(test_chat, 0) X(test_convert_inputs, 0) X(test_gguf, 1) \
    X(test_hostile, 0) X(test_jinja, 0) X(test_kernels, 0) X(test_lib_ctx, 0) X(test_moe, 0) X(test_ops, 0)         \
    X(test_reference, 0) X(test_threads, 0) X(test_tokenizer, 0) X(test_tokenizer_regex, 0) X(tool_gguf_write, 1)   \
    X(tool_nfc, 1) X(fuzz_gguf, 2) X(fuzz_json, 2) X(fuzz_model, 2) X(fuzz_safetensors, 2)

#define main test_badfile_main
#include "test_badfile.c"
#undef main
#define main test_bigfile_main
#include "test_bigfile.c"
#undef main
#define main test_chat_main
#include "test_chat.c"
#undef main
#define main test_convert_inputs_main
#include "test_convert_inputs.c"
#undef main
#define main test_gguf_main
#include "test_gguf.c"
#undef main
#define main test_hostile_main
#include "test_hostile.c"
#undef main
#define main test_jinja_main
#include "test_jinja.c"
#undef main
#define main test_kernels_main
#include "test_kernels.c"
#undef main
#define main test_lib_ctx_main
#include "test_lib_ctx.c"
#undef main
#define main test_moe_main
#include "test_moe.c"
#undef main
#define main test_ops_main
#include "test_ops.c"
#undef main
#define main test_reference_main
#include "test_reference.c"
#undef main
#define main test_threads_main
#include "test_threads.c"
#undef main
#define main test_tokenizer_main
#include "test_tokenizer.c"
#undef main
#define main test_tokenizer_regex_main
#include "test_tokenizer_regex.c"
#undef main
#define main tool_gguf_write_main
#include "tool_gguf_write.c"
#undef main
#define main tool_nfc_main
#include "tool_nfc.c"
#undef main
#define REPLAY_NO_MAIN
#include "fuzz/replay.c"
#define LLVMFuzzerTestOneInput fuzz_gguf_one
#include "fuzz/fuzz_gguf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_json_one
#include "fuzz/fuzz_json.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_model_one
#include "fuzz/fuzz_model.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_safetensors_one
#include "fuzz/fuzz_safetensors.c"
#undef LLVMFuzzerTestOneInput

/* A main of either form, or a fuzz target's input function for replay(). */
typedef struct {
    const char *name;
    int (*main_args)(int, char **);
    int (*main_void)(void);
    int (*fuzz_one)(const uint8_t *, size_t);
} internal_test;
#define TEST_ENTRY_0(n) { #n, NULL, n##_main, NULL },
#define TEST_ENTRY_1(n) { #n, n##_main, NULL, NULL },
#define TEST_ENTRY_2(n) { #n, NULL, NULL, n##_one },
#define TEST_ENTRY(n, args) TEST_ENTRY_##args(n)
static const internal_test internal_tests[] = { TESTS(TEST_ENTRY) };

/* The test's name: argv[0] without its directory and a .exe or .bin suffix. */
static size_t test_name(const char *argv0, const char **name) {
    const char *s = argv0, *p;
    size_t n;
    for (p = argv0; *p; p++)
        if (*p == '/' || *p == '\\') s = p + 1;
    n = strlen(s);
    if (n > 4 && (strcmp(s + n - 4, ".exe") == 0 || strcmp(s + n - 4, ".bin") == 0)) n -= 4;
    *name = s;
    return n;
}

int main(int argc, char **argv) {
    const char *name;
    size_t n = test_name(argc > 0 ? argv[0] : "", &name), i;
    for (i = 0; i < sizeof internal_tests / sizeof internal_tests[0]; i++) {
        const internal_test *t = &internal_tests[i];
        if (strlen(t->name) != n || memcmp(t->name, name, n) != 0) continue;
        if (t->fuzz_one) return replay(argc, argv, t->fuzz_one);
        return t->main_args ? t->main_args(argc, argv) : t->main_void();
    }
    fprintf(stderr, "internals: no test named %.*s (the program runs the test of its own name)\n", (int)n, name);
    return 2;
}
