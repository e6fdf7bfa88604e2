/* sampling.h - the sampling flags build/generate and build/chat share (llama.cpp spellings).
   Included by the examples after llm.h; not part of the library. */
#ifndef LLM_EXAMPLES_SAMPLING_H
#define LLM_EXAMPLES_SAMPLING_H

#include <stdlib.h>
#include <string.h>

#define SAMPLING_USAGE \
    "  --temp T               temperature; 0 is greedy, ties to the lowest id\n" \
    "  --top-k N              keep the N most likely tokens (0: off)\n" \
    "  --top-p P              keep the most likely tokens up to probability P (1: off)\n" \
    "  --min-p P              drop tokens below P x the most likely one's probability (0: off)\n" \
    "  --repeat-penalty R     divide recent tokens' positive logits by R (1: off)\n" \
    "  --repeat-last-n N      how many recent tokens the penalties see (default 64; -1: all; 0: none)\n" \
    "  --presence-penalty P   subtract P from every recent token's logit (0: off)\n" \
    "  --frequency-penalty F  subtract F x its count from every recent token's logit (0: off)\n" \
    "  --seed S               random seed\n"

#define SAMPLING_NO_WINDOW INT32_MIN

static int sampling_number(const char *v, double lo, double hi, double *out) {
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= lo && d <= hi)) return -1;
    *out = d;
    return 0;
}

/* Applies flag a with value v to s. Returns 1 when a is a sampling flag, 0 when it is not,
   -1 when its value is bad. Call sampling_done after the last flag. */
static int sampling_flag(const char *a, const char *v, llm_sampler *s) {
    double d;
    static const char *const names[] = { "--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty", "--repeat-last-n",
                                         "--presence-penalty", "--frequency-penalty", "--seed" };
    int k = 0;
    while (k < 9 && strcmp(a, names[k])) k++;
    if (k == 9) return 0;
    if (!v) return -1;
    if (k == 8) {
        char *end;
        unsigned long long u = strtoull(v, &end, 10);
        if (end == v || *end || *v == '-') return -1;
        s->seed = (uint64_t)u;
        s->state = 0;
        return 1;
    }
    if (sampling_number(v, k == 5 ? -1.0 : k >= 6 ? -1e9 : 0.0, k == 1 || k == 5 ? 2147483647.0 : 1e9, &d)) return -1;
    if ((k == 1 || k == 5) && d != (double)(int32_t)d) return -1;
    switch (k) {
    case 0: s->temperature = (float)d; break;
    case 1: s->top_k = (int32_t)d; break;
    case 2: s->top_p = (float)d; break;
    case 3: s->min_p = (float)d; break;
    case 4: s->repeat_penalty = (float)d; break;
    case 5: s->repeat_last_n = d == 0 ? SAMPLING_NO_WINDOW : (int32_t)d; break;
    case 6: s->presence_penalty = (float)d; break;
    default: s->frequency_penalty = (float)d; break;
    }
    return 1;
}

/* --repeat-last-n 0 means no penalties, as in llama.cpp (the library reads 0 as its
   default window of 64). */
static void sampling_done(llm_sampler *s) {
    if (s->repeat_last_n != SAMPLING_NO_WINDOW) return;
    s->repeat_last_n = 0;
    s->repeat_penalty = 1.0f;
    s->presence_penalty = s->frequency_penalty = 0.0f;
}

#endif
