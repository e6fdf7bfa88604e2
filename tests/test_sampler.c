/* Sampler checks on synthetic logits: greedy, top-k/top-p/min-p supports, penalties, a
   chi-square test of the draws against the softmax, determinism for a seed, and a 150k
   vocabulary. */
#include "../llm.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static float *scratch_for(int32_t n) { return (float *)malloc(llm_sample_scratch_bytes(n)); }

/* llm_sample_logits' id, or -1 when it fails. */
static int32_t pick(llm_sampler *s, const float *logits, int32_t nv, const int32_t *recent, size_t n_recent, void *sc) {
    int32_t id;
    return llm_sample_logits(s, logits, nv, recent, n_recent, sc, &id) == LLM_OK ? id : -1;
}

static uint64_t lcg = 12345;
static float frand(void) { lcg = lcg * 6364136223846793005ull + 1442695040888963407ull; return (float)((lcg >> 40) / 16777216.0); }

/* Draws n times; counts[id]++. */
static void draw(llm_sampler *s, const float *logits, int32_t nv, int n, long *counts) {
    float *sc = scratch_for(nv);
    int i;
    for (i = 0; i < n; i++) {
        int32_t id = pick(s, logits, nv, NULL, 0, sc);
        if (id >= 0 && id < nv) counts[id]++;
        else { CHECK(0, "id %d out of range", id); break; }
    }
    free(sc);
}

/* Chi-square of counts against probabilities p (those with p > 0); ids with p == 0 must
   never be drawn. Returns the statistic; *df gets the degrees of freedom. */
static double chi_square(const long *counts, const double *p, int nv, int n, int *df) {
    double chi = 0.0;
    int i, k = 0;
    for (i = 0; i < nv; i++) {
        if (p[i] == 0.0) { CHECK(counts[i] == 0, "id %d drawn %ld times outside the support", i, counts[i]); continue; }
        chi += (counts[i] - n * p[i]) * (counts[i] - n * p[i]) / (n * p[i]);
        k++;
    }
    *df = k - 1;
    return chi;
}

/* 0.999 quantiles of chi-square, df 1..9. */
static const double chi999[10] = { 0, 10.83, 13.82, 16.27, 18.47, 20.52, 22.46, 24.32, 26.12, 27.88 };

static void softmax_ref(const float *logits, int n, double t, double *p) {
    double mx = -1e300, sum = 0.0;
    int i;
    for (i = 0; i < n; i++) if (logits[i] / t > mx) mx = logits[i] / t;
    for (i = 0; i < n; i++) sum += (p[i] = exp(logits[i] / t - mx));
    for (i = 0; i < n; i++) p[i] /= sum;
}

static void test_greedy(void) {
    float logits[100], *sc = scratch_for(100);
    llm_sampler s;
    int i, best = 0;
    for (i = 0; i < 100; i++) { logits[i] = frand() * 10.0f - 5.0f; if (logits[i] > logits[best]) best = i; }
    memset(&s, 0, sizeof s);
    CHECK(pick(&s, logits, 100, NULL, 0, sc) == best, "temperature 0 is not argmax");
    s.temperature = 1e-4f; s.seed = 7;
    for (i = 0; i < 50; i++) CHECK(pick(&s, logits, 100, NULL, 0, sc) == best, "temperature -> 0 is not argmax");
    logits[3] = logits[77] = 100.0f;
    s.temperature = 0.0f;
    CHECK(pick(&s, logits, 100, NULL, 0, sc) == 3, "ties must go to the lowest id");
    free(sc);
}

static void test_distribution(const char *name, const llm_sampler *proto, const float *logits, int nv, const double *p) {
    long counts[16] = { 0 };
    llm_sampler s = *proto;
    int n = 40000, df;
    double chi;
    draw(&s, logits, nv, n, counts);
    chi = chi_square(counts, p, nv, n, &df);
    printf("%-28s chi2 = %6.2f (df %d, 0.999 quantile %.2f)\n", name, chi, df, df > 0 ? chi999[df] : 0.0);
    if (df > 0) CHECK(chi < chi999[df], "%s: draws do not follow the softmax (chi2 %.2f)", name, chi);
}

static void test_supports(void) {
    /* probabilities 0.4 0.25 0.15 0.1 0.06 0.04 (logits are their logs) */
    static const double base[6] = { 0.4, 0.25, 0.15, 0.1, 0.06, 0.04 };
    float logits[6];
    double p[6];
    llm_sampler s;
    int i;
    for (i = 0; i < 6; i++) logits[i] = (float)log(base[i]);
    memset(&s, 0, sizeof s);
    s.seed = 42; s.temperature = 1.0f;
    softmax_ref(logits, 6, 1.0, p);
    test_distribution("temperature 1", &s, logits, 6, p);
    s.temperature = 0.7f;
    softmax_ref(logits, 6, 0.7, p);
    test_distribution("temperature 0.7", &s, logits, 6, p);
    s.temperature = 1.0f; s.top_k = 3;
    for (i = 0; i < 6; i++) p[i] = i < 3 ? base[i] / 0.8 : 0.0;
    test_distribution("top-k 3", &s, logits, 6, p);
    s.top_k = 0; s.top_p = 0.7f; /* 0.4 + 0.25 < 0.7 <= 0.4 + 0.25 + 0.15 */
    for (i = 0; i < 6; i++) p[i] = i < 3 ? base[i] / 0.8 : 0.0;
    test_distribution("top-p 0.7", &s, logits, 6, p);
    s.top_p = 0.6f; /* 0.4 < 0.6 <= 0.65 */
    for (i = 0; i < 6; i++) p[i] = i < 2 ? base[i] / 0.65 : 0.0;
    test_distribution("top-p 0.6", &s, logits, 6, p);
    s.top_p = 0.0f; s.min_p = 0.3f; /* keep p >= 0.12 */
    for (i = 0; i < 6; i++) p[i] = i < 3 ? base[i] / 0.8 : 0.0;
    test_distribution("min-p 0.3", &s, logits, 6, p);
    s.min_p = 0.0f; s.top_k = 4; s.top_p = 0.8f; /* top-k 4 renormalises to 0.9: 0.8*0.9 = 0.72 -> 3 ids */
    for (i = 0; i < 6; i++) p[i] = i < 3 ? base[i] / 0.8 : 0.0;
    test_distribution("top-k 4 then top-p 0.8", &s, logits, 6, p);
}

/* A penalised logit, rounded to float after each operation as llm.h does (an expression
   would keep excess precision where FLT_EVAL_METHOD is 2, as on x87). */
static float penalised(float l, float rp, float count, float fp, float pp) {
    float v = l > 0 ? l / rp : l * rp, pen = count * fp;
    pen += pp;
    v -= pen;
    return v;
}

static void test_penalties(void) {
    float logits[50], *sc = scratch_for(50), *v = sc;
    int32_t recent[] = { 3, 3, 7, 10, 3, 49 };
    llm_sampler s;
    int i;
    for (i = 0; i < 50; i++) logits[i] = frand() * 4.0f - 2.0f;
    logits[7] = -1.5f; logits[10] = 2.5f; logits[3] = 0.75f;
    memset(&s, 0, sizeof s);
    s.repeat_penalty = 1.25f; s.frequency_penalty = 0.5f; s.presence_penalty = 0.125f;
    pick(&s, logits, 50, recent, 6, sc);
    for (i = 0; i < 50; i++) {
        if (i == 3 || i == 7 || i == 10 || i == 49) continue;
        CHECK(v[i] == logits[i], "id %d changed by penalties it was not subject to", i);
    }
    CHECK(v[3] == penalised(0.75f, 1.25f, 3, 0.5f, 0.125f), "id 3: %g", v[3]);
    CHECK(v[7] == penalised(-1.5f, 1.25f, 1, 0.5f, 0.125f), "id 7: %g", v[7]);
    CHECK(v[10] == penalised(2.5f, 1.25f, 1, 0.5f, 0.125f), "id 10: %g", v[10]);
    CHECK(v[49] == penalised(logits[49], 1.25f, 1, 0.5f, 0.125f), "id 49");
    /* A penalty steers greedy decoding away from a repeated id. */
    memset(&s, 0, sizeof s);
    logits[10] = 3.0f; logits[11] = 2.9f;
    CHECK(pick(&s, logits, 50, recent, 6, sc) == 10, "no penalty: argmax");
    s.repeat_penalty = 1.1f;
    CHECK(pick(&s, logits, 50, recent, 6, sc) == 11, "repeat penalty does not move argmax");
    free(sc);
}

static void test_determinism(void) {
    float logits[1000], *sc = scratch_for(1000);
    llm_sampler a, b, c;
    int i, same = 1, differ = 0;
    for (i = 0; i < 1000; i++) logits[i] = frand() * 6.0f;
    memset(&a, 0, sizeof a);
    a.temperature = 0.9f; a.top_p = 0.95f; a.top_k = 100; a.seed = 1234;
    b = a; c = a; c.seed = 1235;
    for (i = 0; i < 200; i++) {
        int32_t x = pick(&a, logits, 1000, NULL, 0, sc), y = pick(&b, logits, 1000, NULL, 0, sc);
        int32_t z = pick(&c, logits, 1000, NULL, 0, sc);
        same &= x == y;
        differ |= x != z;
    }
    CHECK(same, "the same seed gives different draws");
    CHECK(differ, "different seeds give the same 200 draws");
    /* Equal logits: top-p 0.5 keeps exactly the lowest half of the ids. */
    for (i = 0; i < 1000; i++) logits[i] = 1.0f;
    memset(&a, 0, sizeof a);
    a.temperature = 1.0f; a.top_p = 0.5f; a.seed = 5;
    for (i = 0, same = 1; i < 2000; i++) same &= pick(&a, logits, 1000, NULL, 0, sc) < 500;
    CHECK(same, "flat logits, top-p 0.5: an id from the upper half");
    free(sc);
}

/* LLM_TEST_QUICK=1 (an emulated CPU: half a second a draw under qemu-i386): 16 of the 200
   150k-vocabulary draws. */
static void test_large_vocab(void) {
    const char *quick = getenv("LLM_TEST_QUICK");
    int32_t nv = 151936, i, draws = quick && quick[0] == '1' ? 16 : 200;
    float *logits = (float *)malloc((size_t)nv * 4), *sc = scratch_for(nv);
    llm_sampler s;
    clock_t t0;
    long n = 0;
    for (i = 0; i < nv; i++) logits[i] = frand() * 8.0f - 4.0f + (i % 977 == 0 ? 6.0f : 0.0f);
    memset(&s, 0, sizeof s);
    s.temperature = 0.8f; s.top_k = 40; s.top_p = 0.95f; s.min_p = 0.05f; s.seed = 9;
    t0 = clock();
    for (i = 0; i < draws; i++) n += pick(&s, logits, nv, NULL, 0, sc) % 977 == 0;
    printf("150k vocabulary: %.2f ms per draw, %ld of %d draws among the boosted ids\n",
           (double)(clock() - t0) / CLOCKS_PER_SEC * 1000.0 / draws, n, draws);
    CHECK(n == draws, "top-k 40 of 156 boosted ids let another id through");
    s.top_k = 0; s.min_p = 0.0f; s.top_p = 0.5f; /* the boosted ids hold about 65% of the mass */
    for (i = 0, n = 0; i < draws / 4; i++) n += pick(&s, logits, nv, NULL, 0, sc) % 977 == 0;
    CHECK(n == draws / 4, "top-p 0.5 let an id outside the boosted ones through");
    free(logits); free(sc);
}

int main(void) {
    test_greedy();
    test_supports();
    test_penalties();
    test_determinism();
    test_large_vocab();
    return check_summary("sampler: all checks passed");
}
