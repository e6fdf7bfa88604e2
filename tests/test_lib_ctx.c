/* llm_ctx_open's sizes and messages: a context too big for the machine fails at once with
   LLM_ERR_OUT_OF_MEMORY and a message naming the bytes it needs (nothing is filled first);
   a big context that fits costs nothing until it is used; n_ctx past the model's trained
   positions opens with a warning to llm_ctx_desc.log, and a normal one without.
   llm_model_info.weights_mapped tells a mapped file from weights in memory, and a model read
   into memory (no_mmap) by the default allocator sits in 2 MiB pages where the system gives
   them (Linux's transparent huge pages). */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "tiny_model.h"
#include "check.h"

typedef struct log_record { char last[512]; int count; } log_record;

static void record(void *user, const char *message) {
    log_record *r = (log_record *)user;
    snprintf(r->last, sizeof r->last, "%s", message);
    r->count++;
}

/* This process's resident MiB (Linux), else -1. */
static double resident_mib(void) {
    double mib = -1;
#if defined(__linux__)
    FILE *f = fopen("/proc/self/statm", "r");
    long size, pages;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &pages) == 2) mib = pages * 4096.0 / 1048576.0; /* x86-64 and aarch64 Linux: 4 KiB pages */
        fclose(f);
    }
#endif
    return mib;
}

/* Opens a context of n_ctx positions; the seconds it took go to *seconds. */
static llm_result open_timed(const llm_model *m, int32_t n_ctx, llm_kv_type kv, log_record *log, llm_ctx **c, double *seconds) {
    llm_ctx_desc d;
    double t0 = llm__seconds();
    llm_result r;
    memset(&d, 0, sizeof d);
    memset(log, 0, sizeof *log);
    d.n_ctx = n_ctx; d.n_threads = 1; d.kv_type = kv; d.log = record; d.log_user = log;
    r = llm_ctx_open(c, m, &d);
    *seconds = llm__seconds() - t0;
    return r;
}

static void test_sizes(const llm_model *m) {
    log_record log;
    llm_ctx *c = NULL;
    double s;
    llm_result r;
    int32_t ids[4] = { 1, 2, 3, 4 };
    char bytes[64];
    /* 2^31 - 1 positions of 4 layers x 16 f32 K and V values: 1 TiB of KV cache */
    uint64_t kv = llm_kv_cache_bytes(4, 2, 8, 0x7fffffff, 4);
    r = open_timed(m, 0x7fffffff, LLM_KV_F32, &log, &c, &s);
    snprintf(bytes, sizeof bytes, "KV cache %llu", (unsigned long long)kv);
    CHECK(r == LLM_ERR_OUT_OF_MEMORY && c == NULL, "n_ctx 2^31 - 1: %s, expected out of memory", llm_result_string(r));
    CHECK(s < 2.0, "n_ctx 2^31 - 1 took %.2f s to fail", s);
    /* a 32-bit program cannot even address it, and says that instead */
    CHECK(sizeof(size_t) < 8 ? strstr(log.last, "n_ctx 2147483647: the context's size does not fit in this address space") != NULL
                             : strstr(log.last, "n_ctx 2147483647 needs ") && strstr(log.last, bytes) && strstr(log.last, "bytes"),
          "the message names the bytes (or, 32-bit, the address space): \"%s\"", log.last);
    printf("n_ctx 2^31 - 1: %s in %.3f s: %s\n", llm_result_string(r), s, log.last);
    llm_ctx_close(c);

    /* the request: 2^29 positions (64 GiB of f16 cache here); refused or, on a machine
       that has the memory, opened without touching it: either way at once */
    r = open_timed(m, 536870912, LLM_KV_F16, &log, &c, &s);
    CHECK((r == LLM_ERR_OUT_OF_MEMORY && (strstr(log.last, "needs") || (sizeof(size_t) < 8 && strstr(log.last, "address space")))) ||
              r == LLM_OK, "n_ctx 2^29: %s (%s)", llm_result_string(r), log.last);
    CHECK(s < 2.0, "n_ctx 2^29 took %.2f s", s);
    printf("n_ctx 2^29: %s in %.3f s: %s\n", llm_result_string(r), s, log.last);
    if (r == LLM_OK) CHECK(llm_eval(c, ids, 4) == LLM_OK, "the big context evaluates");
    llm_ctx_close(c);

    /* a normal context still opens and runs */
    r = open_timed(m, 64, LLM_KV_F16, &log, &c, &s);
    CHECK(r == LLM_OK && llm_eval(c, ids, 4) == LLM_OK && llm_logits(c) != NULL, "a 64-position context: %s", llm_result_string(r));
    llm_ctx_close(c);

    /* a context that fits but is far bigger than what is used: opens without filling its
       cache (where the resident size can be read: it grows by far less than the cache; a
       sanitizer's shadow of the allocation counts too) */
    {
        double before = resident_mib(), grown, cache = llm_kv_cache_bytes(4, 2, 8, 4 << 20, 4) / 1048576.0;
        r = open_timed(m, 4 << 20, LLM_KV_F32, &log, &c, &s);
        grown = before < 0 ? 0 : resident_mib() - before;
        CHECK(r == LLM_OK && grown < cache / 4 && s < 10.0, "4M positions (%.0f MiB of KV cache): %s in %.3f s, %.0f MiB more resident",
              cache, llm_result_string(r), s, grown);
        printf("4M positions (%.0f MiB of KV cache): open in %.3f s, %.1f MiB more resident\n", cache, s, grown);
    }
    if (r == LLM_OK) CHECK(llm_eval(c, ids, 4) == LLM_OK, "the 4M-position context evaluates");
    llm_ctx_close(c);
}

static void test_trained_context(const llm_model *m) {
    log_record log;
    llm_ctx *c = NULL;
    double s;
    llm_result r = open_timed(m, 64, LLM_KV_F16, &log, &c, &s);
    CHECK(r == LLM_OK && log.count == 0, "n_ctx 64 of the 64 trained: no message (%d: %s)", log.count, log.last);
    llm_ctx_close(c);
    r = open_timed(m, 100, LLM_KV_F16, &log, &c, &s);
    CHECK(r == LLM_OK && log.count == 1 &&
          !strcmp(log.last, "n_ctx 100 exceeds the model's trained context of 64 positions; quality may degrade"),
          "n_ctx 100 of the 64 trained: a warning (%d: %s)", log.count, log.last);
    printf("n_ctx 100: %s\n", log.last);
    llm_ctx_close(c);
    r = open_timed(m, 0, LLM_KV_F16, &log, &c, &s);
    CHECK(r == LLM_OK && log.count == 0 && llm_ctx_size(c) == 64, "the default n_ctx: the trained one, no message");
    llm_ctx_close(c);
    llm_ctx_close(NULL);
}

/* This process's kB of AnonHugePages (Linux), else -1. */
static long huge_kb(void) {
    long kb = -1;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "AnonHugePages:", 14)) kb = atol(line + 14);
    fclose(f);
    return kb;
}

/* Whether this system gives 2 MiB pages to memory marked MADV_HUGEPAGE: the test's own
   8 MiB, marked and touched, must grow AnonHugePages (not so with transparent huge pages
   off, under emulators that ignore madvise, or where no 2 MiB of memory is free in one piece). */
static int system_gives_huge_pages(void) {
    int gives = 0;
#if defined(__linux__) && !defined(LLM_NO_MMAP) && defined(MADV_HUGEPAGE)
    size_t size = (size_t)8 << 20, i;
    long before = huge_kb();
    char *p = (char *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 0;
    if (madvise(p, size, MADV_HUGEPAGE) == 0) {
        for (i = 0; i < size; i += 4096) p[i] = 1;
        gives = before >= 0 && huge_kb() - before >= 2048;
    }
    munmap(p, size);
#endif
    return gives;
}

/* A 17 MiB model opened three ways: llm_model_info.weights_mapped says which (mapped unless
   no_mmap or a build without mmap; the caller's buffer is not), and read into memory by the
   default allocator its weights sit in huge pages where the system gives them (the process's
   AnonHugePages grow by at least one). */
static void test_read_or_mapped(void) {
    tiny_desc d = tiny_default();
    llm_model_desc md;
    llm_model *m;
    char path[512];
    size_t size;
    void *file;
    FILE *f;
    long kb, before;
    int ok, expect_mapped = 1;
#if defined(LLM_NO_MMAP)
    expect_mapped = 0;
#endif
    d.n_vocab = 1024; d.n_embd = 512; d.n_ff = 1536; d.n_layer = 1; d.n_head = 8; d.n_head_kv = 8; d.head_dim = 64;
    snprintf(path, sizeof path, "%s/tests/lib_ctx_huge.llm", getenv("BUILD") ? getenv("BUILD") : "build");
    if (!(file = tiny_model(&d, &size)) || !(f = fopen(path, "wb"))) { check(0, "write %s", path); free(file); return; }
    ok = fwrite(file, 1, size, f) == size;
    if (fclose(f) != 0 || !ok) { check(0, "write %s", path); free(file); return; }
    check(llm_model_open_memory(&m, file, size, NULL) == LLM_OK && !llm_model_info_get(m)->weights_mapped,
          "a model in the caller's buffer: weights_mapped 0");
    llm_model_close(m);
    free(file);
    memset(&md, 0, sizeof md);
    check(llm_model_open(&m, path, &md) == LLM_OK && llm_model_info_get(m)->weights_mapped == expect_mapped,
          "a model file opened: weights_mapped %d", expect_mapped);
    llm_model_close(m);
    md.no_mmap = 1;
    before = huge_kb();
    if (llm_model_open(&m, path, &md) != LLM_OK) { check(0, "open %s read into memory", path); remove(path); return; }
    kb = huge_kb() - before;
    check(!llm_model_info_get(m)->weights_mapped, "a model file read into memory (no_mmap): weights_mapped 0");
    llm_model_close(m);
    remove(path);
    if (!system_gives_huge_pages()) printf("huge pages SKIP: this system gives no 2 MiB pages to memory marked MADV_HUGEPAGE\n");
    else check(kb >= 2048, "the weights read into memory are in huge pages (%ld kB more)", kb);
}

/* llm_ctx_memory_bytes counts the KV cache, the token ids and a scratch that grows with
   n_batch: each token of a batch has at least its residual and normed rows (n_embd each) and
   the two feed-forward rows (n_ff each) in f32. */
static void test_memory_bytes(const llm_model *m) {
    const llm_model_info *h = llm_model_info_get(m);
    llm_ctx_desc d;
    llm_ctx *one = NULL, *many = NULL;
    size_t a, b, token = (size_t)(2 * h->n_embd + 2 * h->n_ff) * 4;
    memset(&d, 0, sizeof d);
    d.n_ctx = 64;
    d.n_batch = 1;
    CHECK(llm_ctx_open(&one, m, &d) == LLM_OK, "a context of n_batch 1 opens");
    d.n_batch = 64;
    CHECK(llm_ctx_open(&many, m, &d) == LLM_OK, "a context of n_batch 64 opens");
    a = llm_ctx_memory_bytes(one);
    b = llm_ctx_memory_bytes(many);
    CHECK(a >= llm_ctx_kv_bytes(one) + 64 * 4 && b >= a + 63 * token,
          "llm_ctx_memory_bytes: %zu with n_batch 1, %zu with 64 (KV cache %zu, at least %zu bytes a token more)", a, b,
          llm_ctx_kv_bytes(one), token);
    CHECK(llm_ctx_memory_bytes(NULL) == 0, "llm_ctx_memory_bytes(NULL) is 0");
    llm_ctx_close(one);
    llm_ctx_close(many);
}

int main(void) {
    tiny_desc d = tiny_default();
    size_t size;
    void *file;
    llm_model *m;
    d.n_layer = 4;
    if (!(file = tiny_model(&d, &size)) || llm_model_open_memory(&m, file, size, NULL) != LLM_OK) {
        printf("FAIL cannot build the test model\n");
        return 1;
    }
    test_sizes(m);
    test_memory_bytes(m);
    test_trained_context(m);
    test_read_or_mapped();
    llm_model_close(m);
    llm_model_close(NULL);
    free(file);
    return check_summary("context sizes and messages: all checks passed");
}
