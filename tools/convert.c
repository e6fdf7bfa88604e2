/* convert: a HuggingFace model directory or a GGUF file -> one .llm file (a CLI over
   tools/llm_convert.h; GGUF through tools/llm_gguf.h).

   build/convert MODEL_DIR|MODEL.gguf|MODEL.llm OUT.llm [--dtype f32|f16|bf16|q8_0|q4_0|q4_k|q5_k|q6_k|q4_k_m|q5_k_m]
                                                     [--quant-reference] [--vocab-only] [--kernels NAME]

   llm_convert does the work (what it reads and refuses is in llm_convert.h). --kernels NAME
   runs the quantizers of that kernel set (tests: every set writes the same bytes). --vocab-only
   writes the tokenizer (and the token ids of config.json / generation_config.json when
   present) without tensors: such a file opens with llm_model_desc.vocab_only. The file is
   written to a new temporary beside OUT and renamed over it; on SIGINT, SIGTERM or SIGHUP this
   program removes the temporary, so an interrupted run leaves no partial file. An OUT that
   exists and is not a regular file (a device, a directory) is refused before any work.

   Output: progress on stderr (a bar of tensors and bytes done with MB/s when stderr is a
   terminal, else one line per tensor), warnings and errors on stderr (exit status 1; 2 for
   bad arguments); on stdout what was written: the tokenizer and chat template found, then a
   summary (architecture, parameters, dtype mix, file size, time). */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "llm_convert.h"

#include <signal.h>
#if defined(_WIN32)
#define isatty _isatty
#define fileno _fileno
#define unlink _unlink
#endif

/* The temporary output, for the signal handler (which gets no argument): set only while
   g_tmp_live says the file is ours. */
static char g_tmp[4096];
static volatile sig_atomic_t g_tmp_live;

static void on_temp(void *user, const char *path) {
    (void)user;
    g_tmp_live = 0;
    if (path) snprintf(g_tmp, sizeof g_tmp, "%s", path);
    g_tmp_live = path != NULL;
}

/* Only async-signal-safe calls: unlink, signal, raise. The signal is then delivered again
   with its default action, so the exit status says what ended the process. */
static void remove_temp_on_signal(int sig) {
    if (g_tmp_live) unlink(g_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(void) {
#if defined(_WIN32)
    signal(SIGINT, remove_temp_on_signal);
    signal(SIGTERM, remove_temp_on_signal);
#else
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    size_t i;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temp_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
#endif
}

/* What the run printed so far, for the summary. */
typedef struct progress {
    int tty;                      /* stderr is a terminal: a bar, else a line per tensor */
    int vocab_only;
    const char *out;
    double t0;
    int count[LLM_DTYPE_COUNT];   /* tensors and bytes written per type */
    uint64_t bytes[LLM_DTYPE_COUNT];
} progress;

static void print_tensor(progress *pg, const llm_convert_progress *p) {
    double dt = llm_seconds() - pg->t0;
    int d, width = 24, fill;
    pg->count[p->dtype]++;
    pg->bytes[p->dtype] += p->bytes;
    if (!pg->tty) {
        fprintf(stderr, "  %-48s %-5s -> %-5s [%lld", p->name, llm_dtype_name(p->src_dtype), llm_dtype_name(p->dtype), (long long)p->shape[0]);
        for (d = 1; d < p->n_dims; d++) fprintf(stderr, ", %lld", (long long)p->shape[d]);
        fprintf(stderr, "]\n");
        return;
    }
    fill = p->bytes_total ? (int)((double)p->bytes_done / (double)p->bytes_total * width) : width;
    fprintf(stderr, "\rconvert: [%.*s%.*s] %d/%d tensors, %.1f/%.1f MB, %.0f MB/s ", fill, "########################",
            width - fill, "........................", p->n_done, p->n_total, (double)p->bytes_done / 1e6,
            (double)p->bytes_total / 1e6, dt > 0.0 ? (double)p->bytes_done / 1e6 / dt : 0.0);
    if (p->n_done == p->n_total) fputc('\n', stderr);
    fflush(stderr);
}

static void print_summary(const progress *pg, const llm_model_info *info, uint64_t bytes) {
    double dt = llm_seconds() - pg->t0;
    int i, first = 1;
    printf("convert: wrote %s\n", pg->out);
    if (pg->vocab_only) {
        printf("  contents      tokenizer only\n");
    } else {
        printf("  architecture  %s: %d layers, hidden %d, heads %d (kv %d), head_dim %d, ffn %d, vocab %d, context %d\n",
               info->arch_name, info->n_layer, info->n_embd, info->n_head, info->n_head_kv, info->head_dim, info->n_ff,
               info->n_vocab, info->n_ctx_train);
        printf("  parameters    %lld (%.2fM)\n", (long long)info->n_params, (double)info->n_params / 1e6);
        printf("  dtypes       ");
        for (i = 0; i < LLM_DTYPE_COUNT; i++)
            if (pg->count[i]) {
                printf("%s %d %s %s (%.2f MB)", first ? "" : ",", pg->count[i], pg->count[i] == 1 ? "tensor" : "tensors",
                       llm_dtype_name((llm_dtype)i), (double)pg->bytes[i] / 1e6);
                first = 0;
            }
        printf("\n");
    }
    printf("  file size     %llu bytes (%.2f MB)\n", (unsigned long long)bytes, (double)bytes / 1e6);
    printf("  time          %.2f s (%.0f MB/s)\n", dt, dt > 0.0 ? (double)bytes / 1e6 / dt : 0.0);
}

static void on_progress(void *user, const llm_convert_progress *p) {
    if (p->name) print_tensor((progress *)user, p);
    else print_summary((progress *)user, p->info, p->file_size);
}

/* Progress, warnings and notes go to stderr; what is written is described on stdout. */
static void on_log(void *user, const char *msg) {
    int to_err = !strncmp(msg, "reading ", 8) || !strncmp(msg, "warning: ", 9) || !strncmp(msg, "note: ", 6);
    (void)user;
    fprintf(to_err ? stderr : stdout, "convert: %s\n", msg);
}

static int parse_dtype_arg(const char *s, llm_dtype *out) {
    int i;
    for (i = 0; i < LLM_DTYPE_COUNT; i++)
        if (strcmp(s, llm_dtype_name((llm_dtype)i)) == 0) { *out = (llm_dtype)i; return 0; }
    return -1;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: convert MODEL_DIR|MODEL.gguf|MODEL.llm OUT.llm [--dtype T] [--quant-reference] [--vocab-only]\n"
            "               [--kernels NAME]\n"
            "  MODEL_DIR     a HuggingFace model directory (config.json, *.safetensors, tokenizer.json)\n"
            "  MODEL.gguf    a GGUF file (llama.cpp's format; without --dtype every tensor is kept\n"
            "                without loss: types llm.h lacks are dequantized to f32)\n"
            "  MODEL.llm     a model file, written again with the type --dtype gives\n"
            "  --dtype       type of the weight matrices (default: as stored); norms and biases stay f32;\n"
            "                q8_0/q4_0: 8/4-bit blocks of 32 (with q4_0 the output matrix of vocabularies\n"
            "                up to 64k is q8_0; matrices whose shape does not fit the blocks are f16)\n"            "                q4_k/q5_k/q6_k: ggml's k-quants, super-blocks of 256 (the output matrix q6_k;\n"
            "                widths that are not a multiple of 256 q8_0); q4_k_m/q5_k_m: llama.cpp's _M mix\n"
            "                (also q6_k for attn_v and ffn_down in some layers)\n"
            "  --quant-reference  q4_0 with ggml's reference rounding instead of our scale search\n"
            "                (for accuracy comparisons)\n"
            "  --vocab-only  write only the tokenizer (needs only tokenizer.json, or a GGUF's tokenizer)\n"
            "  --kernels NAME  the quantizer's kernel set (tests): auto (default), scalar, avx2, avx2-vnni,\n"
            "                avx512, avx512-amx, neon, neon-dotprod; every set writes the same bytes\n");
}

int main(int argc, char **argv) {
    const char *dir = NULL, *out = NULL;
    char err[1024];
    llm_convert_desc d;
    progress pg;
    int i;
    memset(&d, 0, sizeof d);
    memset(&pg, 0, sizeof pg);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { usage(stdout); return 0; }
        if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "q4_k_m") || !strcmp(argv[i], "q5_k_m")) {
                d.dtype = argv[i][1] == '4' ? LLM_DTYPE_Q4_K : LLM_DTYPE_Q5_K;
                d.recipe = LLM_RECIPE_K_M;
            } else if (parse_dtype_arg(argv[i], &d.dtype)) { fprintf(stderr, "convert: unknown --dtype '%s'\n", argv[i]); return 2; }
            d.has_dtype = 1;
        } else if (!strcmp(argv[i], "--quant-reference")) {
            d.quantize_flags |= LLM_QUANTIZE_REFERENCE;
        } else if (!strcmp(argv[i], "--vocab-only")) {
            d.vocab_only = 1;
        } else if (!strcmp(argv[i], "--kernels") && i + 1 < argc) {
            int k;
            i++;
            for (k = 0; k < LLM_KERNELS_COUNT && strcmp(argv[i], llm_kernels_name((llm_kernels)k)); k++) {}
            if (k == LLM_KERNELS_COUNT) { fprintf(stderr, "convert: unknown --kernels '%s'\n", argv[i]); return 2; }
            d.kernels = (llm_kernels)k;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "convert: unknown option '%s'\n", argv[i]); usage(stderr); return 2;
        } else if (!dir) dir = argv[i];
        else if (!out) out = argv[i];
        else { usage(stderr); return 2; }
    }
    if (!dir || !out) { usage(stderr); return 2; }
    pg.t0 = llm_seconds();
    pg.tty = isatty(fileno(stderr));
    pg.vocab_only = d.vocab_only;
    pg.out = out;
    d.progress = on_progress;
    d.log = on_log;
    d.on_temp = on_temp;
    d.user = &pg;
    catch_signals();
    if (llm_convert(dir, out, &d, err, sizeof err) == LLM_OK) return 0;
    fprintf(stderr, "convert: %s\n", err);
    return 1;
}
