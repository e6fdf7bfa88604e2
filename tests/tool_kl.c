/* kl: how far quantized models' next-token distributions are from a reference model's.

   tool_kl [-n POSITIONS] [-s SEQUENCES] [--ids-file F] [--batch] [--bf16-dot] REF.llm CAND.llm...

   Makes SEQUENCES token sequences by sampling the reference model at temperature 1 (seeded,
   starting from BOS or the ids in F), POSITIONS tokens in all, then feeds each sequence to
   every model and compares, at every position, the candidate's next-token distribution Q with
   the reference's P: mean KL(P || Q) in nats and how often the argmax agrees. KV caches are
   f32, so only the weights differ. --batch: the candidates evaluate each sequence in one call
   (a prompt) and give the logits of every position; --bf16-dot: their contexts ask for bf16
   dot products (llm_ctx_desc.bf16_dot), which only prompts use. Prints one line per candidate:
   "CAND.llm: kl MEAN max MAX top1 AGREE% (N positions)", then " bf16-dot" when they were used. */
#include "../llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static llm_model *open_model(const char *path) {
    llm_model *m;
    if (llm_model_open(&m, path, NULL) != LLM_OK) { fprintf(stderr, "kl: cannot open %s\n", path); exit(2); }
    return m;
}

static llm_ctx *open_ctx(llm_model *m, int n_ctx, int batch, int bf16_dot) {
    llm_ctx *c;
    llm_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.n_ctx = n_ctx;
    d.kv_type = LLM_KV_F32;
    d.n_batch = batch ? n_ctx : 0;
    d.logits_all = batch;
    d.bf16_dot = bf16_dot;
    if (llm_ctx_open(&c, m, &d) != LLM_OK) { fprintf(stderr, "kl: cannot create a context\n"); exit(2); }
    return c;
}

/* log-softmax in double */
static void log_probs(const float *logits, int n, double *out) {
    double mx = logits[0], sum = 0.0;
    int i;
    for (i = 1; i < n; i++) if (logits[i] > mx) mx = logits[i];
    for (i = 0; i < n; i++) sum += exp((double)logits[i] - mx);
    for (i = 0; i < n; i++) out[i] = (double)logits[i] - mx - log(sum);
}

static int argmax(const float *x, int n) {
    int i, b = 0;
    for (i = 1; i < n; i++) if (x[i] > x[b]) b = i;
    return b;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform(void) {
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv) {
    int n_pos = 300, n_seq = 2, i, s, p, c, n_prefix = 0, first_model = 0, vocab, len, n_ctx, batch = 0, bf16_dot = 0;
    const char *ids_file = NULL;
    int32_t prefix[256], *seqs;
    llm_model *ref;
    llm_ctx *ctx;
    double *lp, *lq;
    for (i = 1; i < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--batch")) { batch = 1; i--; continue; }
        if (!strcmp(argv[i], "--bf16-dot")) { bf16_dot = 1; i--; continue; }
        if (i + 1 >= argc) { fprintf(stderr, "kl: %s needs a value\n", argv[i]); return 2; }
        if (!strcmp(argv[i], "-n")) n_pos = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s")) n_seq = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ids-file")) ids_file = argv[i + 1];
        else { fprintf(stderr, "kl: unknown option %s\n", argv[i]); return 2; }
    }
    first_model = i;
    if (argc - first_model < 2 || n_pos < 1 || n_seq < 1) {
        fprintf(stderr, "usage: tool_kl [-n POSITIONS] [-s SEQUENCES] [--ids-file F] [--batch] [--bf16-dot] REF.llm CAND.llm...\n");
        return 2;
    }
    ref = open_model(argv[first_model]);
    vocab = llm_model_info_get(ref)->n_vocab;
    if (ids_file) {
        FILE *f = fopen(ids_file, "r");
        if (!f) { fprintf(stderr, "kl: cannot open %s\n", ids_file); return 2; }
        while (n_prefix < 256 && fscanf(f, "%d", &prefix[n_prefix]) == 1) n_prefix++;
        fclose(f);
    } else {
        prefix[n_prefix++] = llm_model_info_get(ref)->bos_id >= 0 ? llm_model_info_get(ref)->bos_id : 0;
    }
    len = n_prefix + n_pos / n_seq;
    n_ctx = llm_model_info_get(ref)->n_ctx_train < len ? llm_model_info_get(ref)->n_ctx_train : len;
    if (n_ctx <= n_prefix) { fprintf(stderr, "kl: the prefix fills the model's context\n"); return 2; }
    len = n_ctx;
    seqs = (int32_t *)malloc((size_t)n_seq * len * sizeof *seqs);
    lp = (double *)malloc((size_t)vocab * sizeof *lp);
    lq = (double *)malloc((size_t)vocab * sizeof *lq);
    /* sample the sequences from the reference */
    ctx = open_ctx(ref, n_ctx, 0, 0);
    for (s = 0; s < n_seq; s++) {
        int32_t *q = seqs + (size_t)s * len;
        memcpy(q, prefix, (size_t)n_prefix * sizeof *q);
        llm_ctx_rewind(ctx, 0);
        llm_eval(ctx, q, (size_t)n_prefix);
        for (p = n_prefix; p < len; p++) {
            double r = uniform(), acc = 0.0;
            int k;
            log_probs(llm_logits(ctx), vocab, lp);
            for (k = 0; k < vocab - 1; k++) { acc += exp(lp[k]); if (acc > r) break; }
            q[p] = k;
            if (p + 1 < len) llm_eval(ctx, &q[p], 1);
        }
    }
    llm_ctx_close(ctx);
    for (c = first_model + 1; c < argc; c++) {
        llm_model *cm = open_model(argv[c]);
        llm_ctx *rc = open_ctx(ref, n_ctx, 0, 0), *cc = open_ctx(cm, n_ctx, batch, bf16_dot);
        double kl_sum = 0.0, kl_max = 0.0;
        int agree = 0, count = 0;
        if (llm_model_info_get(cm)->n_vocab != vocab) { fprintf(stderr, "kl: %s has another vocabulary\n", argv[c]); return 2; }
        for (s = 0; s < n_seq; s++) {
            const int32_t *q = seqs + (size_t)s * len;
            llm_ctx_rewind(rc, 0);
            llm_ctx_rewind(cc, 0);
            if (batch) llm_eval(cc, q, (size_t)len - 1);
            for (p = 0; p < len - 1; p++) {
                double kl = 0.0;
                int k;
                const float *cl;
                llm_eval(rc, &q[p], 1);
                if (!batch) llm_eval(cc, &q[p], 1);
                cl = batch ? llm_logits_at(cc, p) : llm_logits(cc);
                if (p + 1 < n_prefix) continue; /* positions that predict sampled tokens only */
                log_probs(llm_logits(rc), vocab, lp);
                log_probs(cl, vocab, lq);
                for (k = 0; k < vocab; k++) kl += exp(lp[k]) * (lp[k] - lq[k]);
                kl_sum += kl;
                kl_max = kl > kl_max ? kl : kl_max;
                agree += argmax(llm_logits(rc), vocab) == argmax(cl, vocab);
                count++;
            }
        }
        printf("%s: kl %.6f max %.5f top1 %.2f%% (%d positions)%s\n", argv[c], kl_sum / count, kl_max, 100.0 * agree / count, count,
               llm_ctx_bf16_dot(cc) ? " bf16-dot" : "");
        llm_ctx_close(rc);
        llm_ctx_close(cc);
        llm_model_close(cm);
    }
    llm_model_close(ref);
    free(seqs); free(lp); free(lq);
    return 0;
}
