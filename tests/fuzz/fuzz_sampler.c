/* Fuzz target: llm_sample_logits on arbitrary logits (NaN, infinities, all equal, all -inf)
   and arbitrary sampler settings and penalty windows. Whatever the input, the chosen id is
   inside the vocabulary. Input: 24 bytes of settings, then the logits as raw floats. */
#include "../../llm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static float f32_at(const uint8_t *p) { float f; memcpy(&f, p, 4); return f; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static float logits[4096];
    static int32_t recent[16];
    static unsigned char scratch[4096 * 16];
    llm_sampler s;
    int32_t n, i, id, round, n_recent;
    if (size < 28) return 0;
    memset(&s, 0, sizeof s);
    s.temperature = f32_at(data);
    s.top_k = (int8_t)data[4];
    s.top_p = f32_at(data + 5);
    s.min_p = f32_at(data + 9);
    s.repeat_penalty = f32_at(data + 13);
    s.frequency_penalty = (float)(int8_t)data[17] / 16.0f;
    s.presence_penalty = (float)(int8_t)data[18] / 16.0f;
    s.seed = data[19];
    n_recent = data[20] % 16;
    n = (int32_t)((size - 24) / 4);
    if (n > 4096) n = 4096;
    for (i = 0; i < n; i++) {
        switch (data[21] % 5) {
        case 0: logits[i] = f32_at(data + 24 + 4 * i); break;           /* as given */
        case 1: logits[i] = f32_at(data + 24); break;                   /* all equal */
        case 2: logits[i] = -INFINITY; break;                          /* all -inf */
        case 3: logits[i] = i % 3 ? f32_at(data + 24 + 4 * i) : NAN; break;
        default: logits[i] = (float)data[24 + 4 * i] - 128.0f; break;  /* ordinary values */
        }
    }
    for (i = 0; i < n_recent; i++) recent[i] = (int32_t)(data[22 + (i & 1)] + i) % (n + 2) - 1; /* -1 and n included */
    for (round = 0; round < 2; round++) {
        if (llm_sample_logits(&s, logits, n, recent, (size_t)n_recent, scratch, &id) != LLM_OK || id < 0 || id >= n) abort();
    }
    return 0;
}
