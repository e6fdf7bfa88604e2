/* Fuzz target: tools/json.h on arbitrary bytes; when the text parses, json_get/json_is_int
   walk the tree and the converter reads it as config.json and generation_config.json
   (llm__cv_hparams_from_json); a JSON object with a "model" member is also read as tokenizer.json
   (llm__cv_tok_read, which takes a directory: LLM_FUZZ_TMPDIR names an empty one to write it in;
   without it that part is skipped). Seeds: tests/fuzz/corpus/fuzz_json (real files). */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../../tools/llm_convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const json_value *v, int depth) {
    size_t i;
    if (depth > 600) abort(); /* the parser limits nesting to 512 */
    (void)json_is_int(v);
    (void)json_type_name(v->type);
    if (v->type == JSON_ARRAY || v->type == JSON_OBJECT)
        for (i = 0; i < v->len; i++) walk(&v->items[i], depth + 1);
    if (v->type == JSON_STRING && v->str[v->len] != 0) abort(); /* strings are NUL-terminated */
    if (v->type == JSON_OBJECT) /* keys hold no NUL and are unique (the inputs are small) */
        for (i = 0; i < v->len; i++) {
            size_t j;
            if (strlen(v->items[i].key) != v->items[i].key_len) abort();
            for (j = 0; j < i; j++)
                if (v->items[j].key_len == v->items[i].key_len && memcmp(v->items[j].key, v->items[i].key, v->items[i].key_len) == 0) abort();
        }
}

static void read_as_tokenizer(llm__cv *cv, const uint8_t *data, size_t size, const char *dir) {
    char path[1024];
    FILE *f;
    llm__cv_tok_data td;
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    if (!(f = fopen(path, "wb"))) abort();
    if (fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    if (llm__cv_tok_read(cv, dir, &td) == 0) llm__cv_tok_data_free(&td);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static llm__cv cv; /* zero: no log, no progress */
    static const llm_convert_desc desc = { 0 };
    char err[256];
    llm__cv_hparams h;
    json_value *v = json_parse((const char *)data, size, err, sizeof err);
    cv.desc = &desc;
    if (!v) return 0;
    walk(v, 0);
    if (v->type == JSON_OBJECT) {
        (void)json_get(v, "model_type");
        (void)llm__cv_hparams_from_json(&cv, v, v, &h);
        llm__cv_hparams_free(&h);
        if (json_get(v, "model") && getenv("LLM_FUZZ_TMPDIR")) read_as_tokenizer(&cv, data, size, getenv("LLM_FUZZ_TMPDIR"));
    }
    json_free(v);
    return 0;
}
