/* sampling.h - the sampling flags build/generate and build/chat share (llama.cpp
   spellings). Included by the programs after llm.h; not part of the library. */
#ifndef LLM_PROGRAMS_SAMPLING_H
#define LLM_PROGRAMS_SAMPLING_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "flags.h"

#define SAMPLING_USAGE \
    "  --temp T               temperature; 0 is greedy, ties to the lowest id\n" \
    "  --top-k N              keep the N most likely tokens (0: off)\n" \
    "  --top-p P              keep the most likely tokens up to probability P (1: off)\n" \
    "  --min-p P              drop tokens below P x the most likely one's probability (0: off)\n" \
    "  --repeat-penalty R     divide recent tokens' positive logits by R (1: off)\n" \
    "  --repeat-last-n N      how many recent tokens the penalties see (default 64; -1: all; 0: none)\n" \
    "  --presence-penalty P   subtract P from every recent token's logit (0: off)\n" \
    "  --frequency-penalty F  subtract F x its count from every recent token's logit (0: off)\n" \
    "  -s, --seed S           random seed\n"

#define SAMPLING_NO_WINDOW INT32_MIN

/* The sampling flags' names, for a program's list of the flags it knows (flag_unknown). */
#define SAMPLING_FLAGS "--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty", "--repeat-last-n", \
                       "--presence-penalty", "--frequency-penalty", "--seed"

/* Applies flag a (as flag_name spells it) with value v to s. Returns 1 when a is a sampling
   flag, 0 when it is not, -1 after saying on stderr why v is bad. Call sampling_done after the
   last flag. */
FLAGS_FN int sampling_parse(const char *prog, const char *a, const char *v, llm_sampler *s) {
    static const char *const names[] = { SAMPLING_FLAGS, NULL };
    int32_t n;
    int k = 0, ok;
    while (names[k] && strcmp(a, names[k])) k++;
    if (!names[k]) return 0;
    switch (k) {
    case 0: ok = flag_float(prog, a, v, 0.0f, 1e9f, &s->temperature); break;
    case 1: ok = flag_int(prog, a, v, 0, INT32_MAX, &s->top_k); break;
    case 2: ok = flag_float(prog, a, v, 0.0f, 1e9f, &s->top_p); break;
    case 3: ok = flag_float(prog, a, v, 0.0f, 1e9f, &s->min_p); break;
    case 4: ok = flag_float(prog, a, v, 0.0f, 1e9f, &s->repeat_penalty); break;
    case 5:
        if ((ok = flag_int(prog, a, v, -1, INT32_MAX, &n)) != 0) s->repeat_last_n = n == 0 ? SAMPLING_NO_WINDOW : n;
        break;
    case 6: ok = flag_float(prog, a, v, -1e9f, 1e9f, &s->presence_penalty); break;
    case 7: ok = flag_float(prog, a, v, -1e9f, 1e9f, &s->frequency_penalty); break;
    default:
        if ((ok = flag_u64(prog, a, v, &s->seed)) != 0) s->state = 0;
        break;
    }
    return ok ? 1 : -1;
}

/* --repeat-last-n 0 means no penalties, as in llama.cpp (the library reads 0 as its
   default window of 64). */
FLAGS_FN void sampling_done(llm_sampler *s) {
    if (s->repeat_last_n != SAMPLING_NO_WINDOW) return;
    s->repeat_last_n = 0;
    s->repeat_penalty = 1.0f;
    s->presence_penalty = s->frequency_penalty = 0.0f;
}

#endif
