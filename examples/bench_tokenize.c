/* bench_tokenize: tokenizer speed.

   build/bench_tokenize -m model.llm [-m model2.llm ...] [-f prose.txt] [-r repeats]

   For each model: the time to open it (vocab-only), MB/s tokenizing English prose (the
   file given with -f, or about 1 MB of generated prose), MB/s for 1 MB of one "word" of
   random lowercase letters without spaces, and MB/s decoding the prose's ids. Each figure is
   the best of -r runs (default 3) on one thread, in processor time. */
#define LLM_IMPLEMENTATION
#include "../llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Processor time of this process: on a shared machine it stays close to the time an idle
   one would take, where wall-clock time does not. */
static double now(void) { return (double)clock() / CLOCKS_PER_SEC; }

static uint64_t rng(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

/* Sentences of common English words, with capitals, commas, numbers and paragraphs. */
static char *make_prose(size_t size) {
    static const char *const words[] = {
        "the", "of", "and", "to", "a", "in", "that", "is", "was", "he", "for", "it", "with", "as", "his", "on", "be",
        "at", "by", "I", "this", "had", "not", "are", "but", "from", "or", "have", "an", "they", "which", "one", "you",
        "were", "her", "all", "she", "there", "would", "their", "we", "him", "been", "has", "when", "who", "will",
        "more", "no", "if", "out", "so", "said", "what", "up", "its", "about", "into", "than", "them", "can", "only",
        "other", "new", "some", "could", "time", "these", "two", "may", "then", "do", "first", "any", "my", "now",
        "such", "like", "our", "over", "man", "me", "even", "most", "made", "after", "also", "did", "many", "before",
        "must", "through", "back", "years", "where", "much", "your", "way", "well", "down", "should", "because",
        "each", "just", "those", "people", "how", "too", "little", "state", "good", "very", "make", "world", "still",
        "own", "see", "men", "work", "long", "get", "here", "between", "both", "life", "being", "under", "never",
        "day", "same", "another", "know", "while", "last", "might", "us", "great", "old", "year", "off", "come",
        "since", "against", "go", "came", "right", "used", "take", "three", "government", "morning", "children",
        "understanding", "beautiful", "remember", "question", "different", "important", "something", "everything",
    };
    char *s = (char *)malloc(size + 64);
    size_t n = 0, w = 0;
    uint64_t seed = 88172645463325252ull;
    int cap = 1;
    if (!s) return NULL;
    while (n < size) {
        const char *word = words[rng(&seed) % (sizeof words / sizeof words[0])];
        size_t len = strlen(word);
        if (w > 0) s[n++] = ' ';
        memcpy(s + n, word, len);
        if (cap && word[0] >= 'a') s[n] = (char)(word[0] - 32);
        n += len;
        cap = 0;
        w++;
        if (rng(&seed) % 97 == 0) n += (size_t)sprintf(s + n, " %u", (unsigned)(rng(&seed) % 2000));
        if (w > 6 && rng(&seed) % 9 == 0) { s[n++] = '.'; cap = 1; if (rng(&seed) % 6 == 0) { s[n++] = '\n'; s[n++] = '\n'; w = 0; } }
        else if (rng(&seed) % 13 == 0) s[n++] = ',';
    }
    s[n] = 0;
    return s;
}

static char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, got;
    *n = 0;
    if (!f) return NULL;
    do {
        if (cap - *n < 65536) { cap = cap * 2 + 65536; buf = (char *)realloc(buf, cap + 1); if (!buf) { fclose(f); return NULL; } }
        got = fread(buf + *n, 1, cap - *n, f);
        *n += got;
    } while (got > 0);
    fclose(f);
    return buf;
}

/* Best time of `repeats` tokenizations; the id count through n_ids. */
static double time_tokenize(const llm_model *m, const char *text, size_t len, int32_t *ids, size_t cap, int repeats, size_t *n_ids) {
    double best = 1e30;
    int r;
    for (r = 0; r < repeats; r++) {
        double t0 = now();
        llm_result res = llm_tokenize(m, text, len, 0, ids, cap, n_ids);
        double t = now() - t0;
        if (res != LLM_OK) { fprintf(stderr, "bench_tokenize: %s\n", llm_result_string(res)); exit(1); }
        if (t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv) {
    const char *models[16], *prose_path = NULL;
    int n_models = 0, repeats = 3, i;
    size_t prose_len, word_len = 1 << 20, k;
    char *prose, *word, *text;
    int32_t *ids;
    uint64_t seed = 12345;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc && n_models < 16) models[n_models++] = argv[++i];
        else if (!strcmp(argv[i], "-f") && i + 1 < argc) prose_path = argv[++i];
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) repeats = atoi(argv[++i]);
        else { fprintf(stderr, "usage: bench_tokenize -m model.llm [-m ...] [-f prose.txt] [-r repeats]\n"); return 2; }
    }
    if (!n_models || repeats < 1) { fprintf(stderr, "usage: bench_tokenize -m model.llm [-m ...] [-f prose.txt] [-r repeats]\n"); return 2; }
    prose = prose_path ? read_file(prose_path, &prose_len) : make_prose(prose_len = 1 << 20);
    word = (char *)malloc(word_len);
    ids = (int32_t *)malloc((word_len + (1 << 22)) * sizeof *ids);
    text = (char *)malloc(16 << 20);
    if (!prose || !word || !ids || !text) { fprintf(stderr, "bench_tokenize: cannot read or allocate the text\n"); return 1; }
    for (k = 0; k < word_len; k++) word[k] = (char)('a' + rng(&seed) % 26);
    printf("prose: %s, %.2f MB; word: %.2f MB of random a-z\n", prose_path ? prose_path : "generated", prose_len / 1e6, word_len / 1e6);
    for (i = 0; i < n_models; i++) {
        llm_model *m;
        llm_model_desc d;
        size_t n_ids, n_word, n_text;
        double t_open, t_prose, t_word, t_dec = 1e30, t0;
        int r;
        memset(&d, 0, sizeof d);
        d.vocab_only = 1;
        t0 = now();
        if (llm_model_open(&m, models[i], &d) != LLM_OK || !llm_tokenizer_info_get(m)) {
            fprintf(stderr, "bench_tokenize: cannot open %s or it has no tokenizer\n", models[i]);
            return 1;
        }
        t_open = now() - t0;
        t_prose = time_tokenize(m, prose, prose_len, ids, word_len + (1 << 22), repeats, &n_ids);
        for (r = 0; r < repeats; r++) {
            double t1 = now();
            if (llm_detokenize(m, ids, n_ids, 0, text, 16 << 20, &n_text) != LLM_OK) { fprintf(stderr, "bench_tokenize: decode failed\n"); return 1; }
            if (now() - t1 < t_dec) t_dec = now() - t1;
        }
        t_word = time_tokenize(m, word, word_len, ids, word_len + (1 << 22), repeats, &n_word);
        printf("%s: %d tokens, open %.1f ms | prose %.1f MB/s (%lu ids) | 1 MB word %.3f s (%.1f MB/s, %lu ids) | decode %.1f MB/s\n",
               models[i], llm_tokenizer_info_get(m)->n_tokens, t_open * 1e3, prose_len / 1e6 / t_prose, (unsigned long)n_ids,
               t_word, word_len / 1e6 / t_word, (unsigned long)n_word, n_text / 1e6 / t_dec);
        llm_model_close(m);
    }
    free(prose); free(word); free(ids); free(text);
    return 0;
}
