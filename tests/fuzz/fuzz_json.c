/* Fuzz target: tools/json.h on arbitrary bytes; when the text parses, the converter reads it
   as config.json and generation_config.json (hparams_from_json), and json_get/json_is_int
   walk the tree. Seeds: tests/fuzz/corpus/fuzz_json (real config files). */
#define CONVERT_NO_MAIN
#include "../../tools/convert.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const json_value *v, int depth) {
    size_t i;
    if (depth > 600) abort(); /* the parser limits nesting to 512 */
    (void)json_is_int(v);
    (void)json_type_name(v->type);
    if (v->type == JSON_ARRAY || v->type == JSON_OBJECT)
        for (i = 0; i < v->len; i++) walk(&v->items[i], depth + 1);
    if (v->type == JSON_STRING && v->str[v->len] != 0) abort(); /* strings are NUL-terminated */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[256];
    hparams h;
    json_value *v = json_parse((const char *)data, size, err, sizeof err);
    if (!v) return 0;
    walk(v, 0);
    if (v->type == JSON_OBJECT) {
        (void)json_get(v, "model_type");
        (void)hparams_from_json(v, v, &h);
        free(h.window);
    }
    json_free(v);
    return 0;
}
