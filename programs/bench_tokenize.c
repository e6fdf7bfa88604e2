/* bench_tokenize: tokenizer speed.

   build/bench_tokenize -m model.llm [-m model2.llm ...] [-f prose.txt] [-r repeats]

   For each model: the time to open it (vocab-only), MB/s tokenizing English prose (the
   file given with -f, or about 1 MB of generated prose), MB/s for 1 MB of one "word" of
   random lowercase letters without spaces, and MB/s decoding the prose's ids. Each figure is
   the best of -r runs (default 3) on one thread, in processor time. */
#include "../llm.h"
#include "flags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Processor time of this process: on a shared machine it stays close to the time an idle
   one would take, where wall-clock time does not. */
static double now(void) { return (double)clock() / CLOCKS_PER_SEC; }

static void usage(FILE *f) {
    fprintf(f, "usage: bench_tokenize -m model.llm [-m model2.llm ...] [-f prose.txt] [-r repeats]\n"
               "  -m, --model FILE  a model file (vocab-only will do); up to 16\n"
               "  -f, --file FILE   English prose to tokenize (default: about 1 MB generated)\n"
               "  -r N              runs per figure, the best is shown (default 3)\n"
               "  -h, --help        this text\n");
}

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

static const char *const known[] = { "-m", "--model", "-f", "--file", "-r", "-h", "--help", NULL };
static const char *const valued[] = { "-m", "-f", "-r", NULL };

int main(int argc, char **argv) {
    const char *models[16], *prose_path = NULL;
    int32_t repeats = 3;
    int n_models = 0, i, rc = 1;
    size_t prose_len, word_len = 1 << 20, k;
    char *prose, *word, *text;
    int32_t *ids;
    uint64_t seed = 12345;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *a = flag_name(arg), *v;
        if (!strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!flag_is(a, valued)) { flag_unknown("bench_tokenize", arg, known); return 2; }
        if (!(v = flag_value(argc, argv, &i))) { fprintf(stderr, "bench_tokenize: %s needs a value\n", arg); return 2; }
        if (!strcmp(a, "-f")) prose_path = v;
        else if (!strcmp(a, "-r")) { if (!flag_int("bench_tokenize", arg, v, 1, 1000000, &repeats)) return 2; }
        else if (n_models < 16) models[n_models++] = v;
        else { fprintf(stderr, "bench_tokenize: more than 16 models\n"); return 2; }
    }
    if (!n_models) { fprintf(stderr, "bench_tokenize: no model: give -m FILE (see bench_tokenize --help)\n"); return 2; }
    warn_build("bench_tokenize");
    if (!(prose = prose_path ? read_whole_file("bench_tokenize", prose_path, &prose_len) : make_prose(prose_len = 1 << 20))) return 1;
    word = (char *)malloc(word_len);
    ids = (int32_t *)malloc((word_len + (1 << 22)) * sizeof *ids);
    text = (char *)malloc(16 << 20);
    if (!word || !ids || !text) { fprintf(stderr, "bench_tokenize: out of memory\n"); goto done; }
    for (k = 0; k < word_len; k++) word[k] = (char)('a' + rng(&seed) % 26);
    for (i = 0; i < n_models; i++) {
        llm_model *m;
        llm_model_desc d;
        size_t n_ids, n_word, n_text;
        double t_open, t_prose, t_word, t_dec = 1e30, t0;
        int r;
        memset(&d, 0, sizeof d);
        d.vocab_only = 1;
        t0 = now();
        if (!(m = open_model("bench_tokenize", models[i], &d))) goto done;
        if (!llm_tokenizer_info_get(m)) { fprintf(stderr, "bench_tokenize: %s has no tokenizer\n", models[i]); llm_model_close(m); goto done; }
        t_open = now() - t0;
        if (i == 0) /* once a model opens: an error leaves stdout empty */
            printf("prose: %s, %.2f MB; word: %.2f MB of random a-z\n", prose_path ? prose_path : "generated", prose_len / 1e6, word_len / 1e6);
        t_prose = time_tokenize(m, prose, prose_len, ids, word_len + (1 << 22), repeats, &n_ids);
        for (r = 0; r < repeats; r++) {
            double t1 = now();
            if (llm_detokenize(m, ids, n_ids, 0, text, 16 << 20, &n_text) != LLM_OK) { fprintf(stderr, "bench_tokenize: decode failed\n"); llm_model_close(m); goto done; }
            if (now() - t1 < t_dec) t_dec = now() - t1;
        }
        t_word = time_tokenize(m, word, word_len, ids, word_len + (1 << 22), repeats, &n_word);
        printf("%s: %d tokens, open %.1f ms | prose %.1f MB/s (%lu ids) | 1 MB word %.3f s (%.1f MB/s, %lu ids) | decode %.1f MB/s\n",
               models[i], llm_tokenizer_info_get(m)->n_tokens, t_open * 1e3, prose_len / 1e6 / t_prose, (unsigned long)n_ids,
               t_word, word_len / 1e6 / t_word, (unsigned long)n_word, n_text / 1e6 / t_dec);
        llm_model_close(m);
    }
    rc = 0;
done:
    free(prose); free(word); free(ids); free(text);
    return rc;
}
