/* perplexity: how well a model predicts a text, and how far a model's predictions are from
   another's (the standard way to judge a quantization).

   build/perplexity -m model.llm -f text.txt [-c n_ctx] [-b n_batch] [--chunks N] [-t N]
                    [--kl-base base.llm] [--bf16-dot] [--no-mmap]

   Windows: the text is tokenized as a whole (no special tokens added or parsed) and cut into
   consecutive, non-overlapping windows of n_ctx - 1 tokens (the last one may be shorter).
   Each window is evaluated in a fresh context as BOS + its tokens (without BOS when the
   model has none: then n_ctx tokens, the first one not scored), and every token of the
   window is scored: -log p(token | BOS and the window's tokens before it). So every token of
   the text is predicted exactly once, with between 0 and n_ctx - 2 tokens of text before it.
   Perplexity is exp(mean of those), its uncertainty the standard error of the mean
   carried through exp (PPL x SE).

   --kl-base: the base model (same vocabulary and tokenization) is evaluated on the same
   windows; at every scored position the next-token distributions are compared: KL(base ||
   model) = sum_i p_base(i) (log p_base(i) - log p_model(i)) in nats, and whether both put
   the same token first (ties to the lowest id). Reported: the mean KL and the top-1 agreement,
   each with its standard error (sample standard deviation / sqrt(positions), and
   sqrt(f (1 - f) / positions)).

   --bf16-dot: the model (not the base) multiplies bf16 weights with activations rounded to
   bf16 where the CPU has bf16 dot products (llm_ctx_desc.bf16_dot), so --kl-base with the
   same file as base measures what that costs.

   The results go to stdout, one "name: value" per line; progress goes to stderr. */
#include "../llm.h"
#include "flags.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: perplexity -m model.llm -f text.txt [options]\n"
            "  -m, --model FILE       model file (.llm)\n"
            "  -f, --file FILE        the text (UTF-8)\n"
            "  -c, --ctx-size N                window size in tokens, BOS included (default 256 or the model's\n"
            "                         positions if fewer)\n"
            "  -b, --batch-size N     tokens per evaluation call (default 64)\n"
            "  --chunks N             score only the first N windows\n"
            "  -t, --threads N        threads (default: all CPUs)\n"
            "  --kl-base FILE         also compare the next-token distributions with this model's:\n"
            "                         mean KL(base || model) and top-1 agreement\n"
            "  --bf16-dot             the model's bf16 weights meet activations rounded to bf16 (bf16 dot\n"
            "                         products, where the CPU has them; the base stays exact)\n"
            "  --no-mmap              read the weights into memory instead of mapping the files\n"
            "  -h, --help             this text\n");
}

static int32_t *tokenize_text(const llm_model *m, const char *text, size_t len, size_t *n) {
    int32_t *ids = NULL;
    llm_result r = llm_tokenize(m, text, len, 0, NULL, 0, n);
    if ((r == LLM_ERR_BUFFER_TOO_SMALL || r == LLM_OK) && (ids = (int32_t *)malloc((*n + 1) * sizeof *ids)) != NULL)
        r = llm_tokenize(m, text, len, 0, ids, *n + 1, n);
    if (r != LLM_OK) { fprintf(stderr, "perplexity: cannot tokenize the text: %s\n", llm_result_string(r)); free(ids); return NULL; }
    return ids;
}

/* log-softmax of logits at index `want` (log p), and log Z, in double precision. */
static double log_sum_exp(const float *x, int32_t n) {
    double mx = x[0], s = 0.0;
    int32_t i;
    for (i = 1; i < n; i++) if (x[i] > mx) mx = x[i];
    for (i = 0; i < n; i++) s += exp((double)x[i] - mx);
    return mx + log(s);
}

static int32_t argmax(const float *x, int32_t n) {
    int32_t i, best = 0;
    for (i = 1; i < n; i++) if (x[i] > x[best]) best = i;
    return best;
}

/* KL(p || q) of two logit vectors. */
static double kl_divergence(const float *p, const float *q, int32_t n) {
    double lp = log_sum_exp(p, n), lq = log_sum_exp(q, n), kl = 0.0;
    int32_t i;
    for (i = 0; i < n; i++) {
        double a = (double)p[i] - lp, b = (double)q[i] - lq;
        kl += exp(a) * (a - b);
    }
    return kl > 0.0 ? kl : 0.0; /* rounding can make a zero divergence a hair negative */
}

typedef struct stat_sum { double n, sum, sum_sq; } stat_sum;

static void stat_add(stat_sum *s, double x) { s->n += 1.0; s->sum += x; s->sum_sq += x * x; }
static double stat_mean(const stat_sum *s) { return s->n > 0.0 ? s->sum / s->n : 0.0; }
/* Standard error of the mean: sample standard deviation / sqrt(n). */
static double stat_se(const stat_sum *s) {
    double m = stat_mean(s), var;
    if (s->n < 2.0) return 0.0;
    var = (s->sum_sq - s->n * m * m) / (s->n - 1.0);
    return var > 0.0 ? sqrt(var / s->n) : 0.0;
}

typedef struct scorer {
    llm_ctx *ctx, *base;
    int32_t *seq;                /* BOS + a window's tokens */
    int32_t n_vocab, n_batch, bos;
    stat_sum nll, base_nll, kl, top1;
} scorer;

/* Evaluates one window (BOS + ids) in fresh contexts and scores every predicted token. */
static int score_window(scorer *s, const int32_t *ids, int32_t n) {
    int32_t *seq = s->seq, len = 0, at, k, pos;
    if (s->bos >= 0) seq[len++] = s->bos;
    memcpy(seq + len, ids, (size_t)n * sizeof *ids);
    len += n;
    llm_ctx_rewind(s->ctx, 0);
    if (s->base) llm_ctx_rewind(s->base, 0);
    for (at = 0; at < len; at += k) {
        k = len - at < s->n_batch ? len - at : s->n_batch;
        if (llm_eval(s->ctx, seq + at, (size_t)k) != LLM_OK || (s->base && llm_eval(s->base, seq + at, (size_t)k) != LLM_OK)) {
            fprintf(stderr, "perplexity: %s%s\n", llm_ctx_error(s->ctx), s->base ? llm_ctx_error(s->base) : "");
            return -1;
        }
        for (pos = at; pos < at + k && pos + 1 < len; pos++) {
            const float *lg = llm_logits_at(s->ctx, pos);
            int32_t next = seq[pos + 1];
            stat_add(&s->nll, log_sum_exp(lg, s->n_vocab) - (double)lg[next]);
            if (s->base) {
                const float *bl = llm_logits_at(s->base, pos);
                stat_add(&s->base_nll, log_sum_exp(bl, s->n_vocab) - (double)bl[next]);
                stat_add(&s->kl, kl_divergence(bl, lg, s->n_vocab));
                stat_add(&s->top1, argmax(bl, s->n_vocab) == argmax(lg, s->n_vocab) ? 1.0 : 0.0);
            }
        }
    }
    return 0;
}

static llm_ctx *open_ctx(const char *prog, llm_model *m, int32_t n_ctx, int32_t n_batch, int32_t threads, int bf16_dot) {
    llm_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.bf16_dot = bf16_dot;
    d.n_ctx = n_ctx;
    d.n_batch = n_batch;
    d.n_threads = threads;
    d.logits_all = 1;
    return open_context(prog, m, &d);
}

static const char *const flags_known[] = { "-m", "--model", "-f", "--file", "-c", "--ctx-size", "-b", "--batch-size", "--chunks",
                                           "-t", "--threads", "--kl-base", "--bf16-dot", "--no-mmap", "-h", "--help", NULL };
static const char *const flags_valued[] = { "-m", "-f", "-c", "-b", "--chunks", "-t", "--kl-base", NULL };

int main(int argc, char **argv) {
    const char *model_path = NULL, *text_path = NULL, *base_path = NULL;
    int32_t n_ctx = 0, n_batch = 64, threads = 0, max_chunks = 0, window, n_windows, w;
    llm_model *model = NULL, *base = NULL;
    llm_model_desc md;
    scorer s;
    char *text = NULL;
    size_t len, n_ids = 0, n_base_ids = 0;
    int32_t *ids = NULL, *base_ids = NULL;
    int i, rc = 1, bf16_dot = 0;
    memset(&md, 0, sizeof md);
    memset(&s, 0, sizeof s);
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *a = flag_name(arg), *v;
        int ok = 1;
        if (!strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "--bf16-dot")) { bf16_dot = 1; continue; }
        if (!strcmp(a, "--no-mmap")) { md.no_mmap = 1; continue; }
        if (!flag_is(a, flags_valued)) { flag_unknown("perplexity", arg, flags_known); return 2; }
        if (!(v = flag_value(argc, argv, &i))) { fprintf(stderr, "perplexity: %s needs a value\n", arg); return 2; }
        if (!strcmp(a, "-m")) model_path = v;
        else if (!strcmp(a, "-f")) text_path = v;
        else if (!strcmp(a, "--kl-base")) base_path = v;
        else if (!strcmp(a, "-c")) ok = flag_int("perplexity", arg, v, 2, INT32_MAX, &n_ctx);
        else if (!strcmp(a, "-b")) ok = flag_int("perplexity", arg, v, 1, INT32_MAX, &n_batch);
        else if (!strcmp(a, "--chunks")) ok = flag_int("perplexity", arg, v, 0, INT32_MAX, &max_chunks);
        else ok = flag_int("perplexity", arg, v, 0, LLM_MAX_THREADS, &threads);
        if (!ok) return 2;
    }
    if (!model_path || !text_path) { usage(stderr); return 2; }
    warn_build("perplexity");
    if (!(model = open_model("perplexity", model_path, &md)) || (base_path && !(base = open_model("perplexity", base_path, &md))))
        goto done;
    if (!n_ctx) n_ctx = llm_model_info_get(model)->n_ctx_train < 256 ? llm_model_info_get(model)->n_ctx_train : 256;
    if (!(text = read_whole_file("perplexity", text_path, &len))) goto done;
    if (!llm_tokenizer_info_get(model)) { fprintf(stderr, "perplexity: %s has no tokenizer\n", model_path); goto done; }
    if (!(ids = tokenize_text(model, text, len, &n_ids))) goto done;
    s.n_vocab = llm_model_info_get(model)->n_vocab;
    s.n_batch = n_batch;
    s.bos = llm_model_info_get(model)->bos_id;
    if (base && (llm_model_info_get(base)->n_vocab != s.n_vocab || !llm_tokenizer_info_get(base) ||
                 !(base_ids = tokenize_text(base, text, len, &n_base_ids)) || n_base_ids != n_ids ||
                 memcmp(ids, base_ids, n_ids * sizeof *ids) || llm_model_info_get(base)->bos_id != s.bos)) {
        fprintf(stderr, "perplexity: %s and %s do not share a vocabulary and tokenization\n", model_path, base_path);
        goto done;
    }
    window = s.bos >= 0 ? n_ctx - 1 : n_ctx;
    n_windows = (int32_t)((n_ids + (size_t)window - 1) / (size_t)window);
    if (max_chunks && max_chunks < n_windows) n_windows = max_chunks;
    if (n_ids < 2 || n_windows == 0) { fprintf(stderr, "perplexity: the text has %lu tokens: too few\n", (unsigned long)n_ids); goto done; }
    if (!(s.seq = (int32_t *)malloc((size_t)n_ctx * sizeof *s.seq))) { fprintf(stderr, "perplexity: out of memory\n"); goto done; }
    if (!(s.ctx = open_ctx("perplexity", model, n_ctx, n_batch, threads, bf16_dot)) ||
        (base && !(s.base = open_ctx("perplexity: --kl-base", base, n_ctx, n_batch, threads, 0))))
        goto done;
    fprintf(stderr, "perplexity: %lu tokens, %d windows of %d tokens%s%s\n", (unsigned long)n_ids, n_windows, window,
            s.bos >= 0 ? " after BOS" : "", !bf16_dot ? "" : llm_ctx_bf16_dot(s.ctx) ? "; bf16 dot products" : "; no bf16 dot products here");
    for (w = 0; w < n_windows; w++) {
        size_t first = (size_t)w * (size_t)window;
        int32_t n = n_ids - first < (size_t)window ? (int32_t)(n_ids - first) : window;
        if (score_window(&s, ids + first, n)) goto done;
        fprintf(stderr, "perplexity: window %d/%d: PPL so far %.4f\n", w + 1, n_windows, exp(stat_mean(&s.nll)));
    }
    printf("tokens: %.0f scored in %d windows of up to %d tokens (%s)\n", s.nll.n, n_windows, n_ctx,
           s.bos >= 0 ? "BOS + n_ctx - 1 text tokens, every text token scored" : "the first token of each window not scored");
    printf("ppl: %.4f +/- %.4f\n", exp(stat_mean(&s.nll)), exp(stat_mean(&s.nll)) * stat_se(&s.nll));
    if (base) {
        printf("base ppl: %.4f +/- %.4f\n", exp(stat_mean(&s.base_nll)), exp(stat_mean(&s.base_nll)) * stat_se(&s.base_nll));
        printf("kl: %.6g +/- %.6g\n", stat_mean(&s.kl), stat_se(&s.kl));
        printf("top1: %.4f +/- %.4f %%\n", 100.0 * stat_mean(&s.top1), 100.0 * sqrt(stat_mean(&s.top1) * (1.0 - stat_mean(&s.top1)) / s.top1.n));
    }
    rc = 0;
done:
    free(ids);
    free(base_ids);
    free(s.seq);
    free(text);
    llm_ctx_close(s.ctx);
    llm_ctx_close(s.base);
    llm_model_close(model);
    llm_model_close(base);
    return rc;
}
