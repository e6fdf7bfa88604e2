/* Chat templates: every template of ../shared/testdata/chat is recognised by the
   converter's rules (tools/llm_convert.h) and rendered by llm_chat_render exactly as
   HuggingFace's apply_chat_template does: the public renderings (expected.jsonl) and the
   extra cases made with jinja2 by tools/gen_chat_cases.py (tests/data/chat_cases.jsonl).
   The model is built in memory: tiny weights plus the chat metadata the converter writes. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"
#include "need.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#define setenv(name, value, overwrite) _putenv_s(name, value)
#endif

/* A 1-layer model with vocab 8 and hidden size 4; its weights are zeros. */
static llm_model *chat_tiny_model(const char *tmpl, const char *bos, const char *eos, const llm__cv_chat_info **info_out, void **mem) {
    static llm__cv_chat_info ci;
    static const char *const names[] = {
        "model.embed_tokens.weight", "model.norm.weight", "model.layers.0.input_layernorm.weight",
        "model.layers.0.post_attention_layernorm.weight", "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.v_proj.weight",
        "model.layers.0.self_attn.o_proj.weight", "model.layers.0.mlp.gate_proj.weight",
        "model.layers.0.mlp.up_proj.weight", "model.layers.0.mlp.down_proj.weight",
    };
    static const int64_t shapes[][2] = { { 8, 4 }, { 4, 0 }, { 4, 0 }, { 4, 0 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 8, 4 }, { 8, 4 }, { 4, 8 } };
    llm_builder *b;
    const void *hdr;
    size_t hs, i, idx;
    llm_model *m = NULL;
    llm_builder_create(&b);
    llm_builder_set_string(b, "general.architecture", "llama", 5);
    llm_builder_set_i32(b, "llm.vocab_size", 8); llm_builder_set_i32(b, "llm.hidden_size", 4);
    llm_builder_set_i32(b, "llm.intermediate_size", 8); llm_builder_set_i32(b, "llm.num_layers", 1);
    llm_builder_set_i32(b, "llm.num_heads", 1); llm_builder_set_i32(b, "llm.num_kv_heads", 1);
    llm_builder_set_i32(b, "llm.head_dim", 4); llm_builder_set_i32(b, "llm.max_position_embeddings", 64);
    llm_builder_set_f64(b, "llm.rms_norm_eps", 1e-5); llm_builder_set_f64(b, "llm.rope_theta", 10000.0);
    llm_builder_set_i32(b, "llm.tie_word_embeddings", 1);
    llm__cv_chat_set_meta(b, tmpl, bos, eos, &ci);
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        llm_builder_add_tensor(b, names[i], LLM_DTYPE_F32, shapes[i][1] ? 2 : 1, shapes[i], &idx);
    if (llm_builder_header(b, &hdr, &hs) == LLM_OK) {
        size_t size = (size_t)llm_builder_file_size(b);
        *mem = calloc(1, size);
        memcpy(*mem, hdr, hs);
        if (llm_model_open_memory(&m, *mem, size, NULL) != LLM_OK) m = NULL;
    }
    llm_builder_destroy(b);
    *info_out = &ci;
    return m;
}

typedef struct model_entry { char *name; llm_model *m; void *mem; llm__cv_chat_info ci; } model_entry;

static model_entry models[64];
static int n_models;

static llm_model *model_for(const json_value *templates, const char *name) {
    const json_value *t = json_get(templates, name);
    int i;
    for (i = 0; i < n_models; i++) if (!strcmp(models[i].name, name)) return models[i].m;
    if (!t || n_models == 64) return NULL;
    const llm__cv_chat_info *ci;
    models[n_models].name = strdup(name);
    models[n_models].m = chat_tiny_model(json_get(t, "chat_template")->str, llm__cv_chat_token_string(json_get(t, "bos_token")),
                                    llm__cv_chat_token_string(json_get(t, "eos_token")), &ci, &models[n_models].mem);
    models[n_models].ci = *ci;
    if (models[n_models].m) {
        const char *fam = json_get(t, "family")->str, *got = llm_chat_template(models[n_models].m);
        size_t k = 0;
        while (llm_chat_template_name(k) && strcmp(llm_chat_template_name(k), got)) k++;
        CHECK(strcmp(got, "raw") != 0, "%s: template not recognised", name);
        CHECK(!strcmp(models[n_models].ci.family, fam), "%s: family %s, templates.json says %s", name, models[n_models].ci.family, fam);
        printf("%-34s -> %s\n", name, got);
    }
    return models[n_models++].m;
}

/* Renders one case; returns 1 when it matches. */
static int check_case(const json_value *templates, const json_value *c, const json_value *messages) {
    const char *tname = json_get(c, "template")->str;
    const json_value *err = json_get(c, "error"), *text = json_get(c, "text"), *think = json_get(c, "enable_thinking");
    llm_model *m = model_for(templates, tname);
    llm_chat_message msgs[64];
    llm_chat_desc desc;
    char buf[1 << 16];
    const char *emsg = NULL;
    size_t n = 0, i, len = 0;
    llm_result r;
    if (!m || messages->len > 64) { CHECK(0, "%s: no model", tname); return 0; }
    for (i = 0; i < messages->len; i++, n++) {
        msgs[i].role = json_get(&messages->items[i], "role")->str;
        msgs[i].content = json_get(&messages->items[i], "content")->str;
    }
    memset(&desc, 0, sizeof desc);
    desc.no_thinking = think && think->type == JSON_FALSE;
    r = llm_chat_render(m, msgs, n, json_get(c, "add_generation_prompt")->type == JSON_TRUE, &desc, buf, sizeof buf, &len, &emsg);
    if (err) {
        const char *want = json_get(c, "message")->str;
        if (r == LLM_ERR_TEMPLATE && emsg && !strcmp(emsg, want)) return 1;
        printf("FAIL %s / %s: expected the error \"%s\", got %s%s%s\n", tname, json_get(c, "conversation")->str, want,
               llm_result_string(r), emsg ? ": " : "", emsg ? emsg : "");
        return 0;
    }
    if (r == LLM_OK && len == text->len && !memcmp(buf, text->str, len) && buf[len] == 0) return 1;
    printf("FAIL %s / %s (generation prompt %d): %s\n  want: ", tname, json_get(c, "conversation")->str,
           json_get(c, "add_generation_prompt")->type == JSON_TRUE, llm_result_string(r));
    for (i = 0; i < text->len && i < 400; i++) putchar(text->str[i] == '\n' ? '|' : text->str[i]);
    printf("\n  got:  ");
    for (i = 0; i < len && i < 400 && r == LLM_OK; i++) putchar(buf[i] == '\n' ? '|' : buf[i]);
    printf("\n");
    return 0;
}

static void run_file(const json_value *templates, const char *path, const json_value *conversations, const char *label) {
    FILE *f = fopen(path, "rb");
    char line[1 << 20], err[256];
    int ok = 0, total = 0;
    if (!f) { CHECK(0, "cannot open %s", path); return; }
    while (fgets(line, sizeof line, f)) {
        json_value *c = json_parse(line, strlen(line), err, sizeof err);
        const json_value *messages = NULL;
        size_t i;
        if (!c) { CHECK(0, "%s: %s", path, err); continue; }
        if (conversations) {
            for (i = 0; i < conversations->len; i++)
                if (!strcmp(json_get(&conversations->items[i], "id")->str, json_get(c, "conversation")->str))
                    messages = json_get(&conversations->items[i], "messages");
        } else {
            messages = json_get(c, "messages");
        }
        total++;
        if (messages && check_case(templates, c, messages)) ok++;
        json_free(c);
    }
    fclose(f);
    printf("%s: %d of %d renderings match\n", label, ok, total);
    CHECK(ok == total && total > 0, "%s: %d mismatches", label, total - ok);
}

static json_value *read_conversations(const char *path) {
    FILE *f = fopen(path, "rb");
    char line[1 << 16], err[256];
    json_value *arr = (json_value *)calloc(1, sizeof *arr);
    arr->type = JSON_ARRAY;
    arr->items = (json_value *)calloc(64, sizeof *arr->items);
    while (f && fgets(line, sizeof line, f) && arr->len < 64) {
        json_value *v = json_parse(line, strlen(line), err, sizeof err);
        if (v) { arr->items[arr->len++] = *v; free(v); }
    }
    if (f) fclose(f);
    return arr;
}

/* Things the data files do not cover: buffer sizes, named templates, raw, dates, lists. */
static void test_api(const json_value *templates) {
    llm_chat_message msgs[2] = { { "user", "Hi" }, { "assistant", "Hello" } };
    llm_chat_desc d;
    char buf[256];
    const char *e;
    size_t n = 0, len;
    const llm__cv_chat_info *ci;
    void *mem, *mem_unknown;
    llm_model *raw = chat_tiny_model(NULL, NULL, NULL, &ci, &mem), *unknown;
    llm_model *l3 = model_for(templates, "llama-3.2-1b-instruct");
    json_value *list;
    char jerr[128];
    CHECK(raw && !strcmp(llm_chat_template(raw), "raw"), "no template is raw");
    CHECK(llm_chat_render(raw, msgs, 2, 1, NULL, buf, sizeof buf, &n, &e) == LLM_OK && !strcmp(buf, "HiHello"), "raw: %s", buf);
    memset(&d, 0, sizeof d);
    d.template_name = "chatml";
    CHECK(llm_chat_render(raw, msgs, 1, 1, &d, buf, sizeof buf, &n, &e) == LLM_OK &&
          !strcmp(buf, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"), "named chatml: %s", buf);
    d.template_name = "gemma"; /* a family name means its first template */
    CHECK(llm_chat_render(raw, msgs, 1, 0, &d, buf, sizeof buf, &n, &e) == LLM_OK &&
          !strcmp(buf, "<start_of_turn>user\nHi<end_of_turn>\n"), "named gemma: %s", buf);
    d.template_name = "nonsense";
    CHECK(llm_chat_render(raw, msgs, 1, 0, &d, buf, sizeof buf, &n, &e) == LLM_ERR_UNSUPPORTED && e, "unknown name");
    CHECK(llm_chat_render(raw, msgs, 2, 0, NULL, buf, 7, &n, &e) == LLM_ERR_BUFFER_TOO_SMALL && n == 7, "buffer too small: %d", (int)n);
    CHECK(llm_chat_render(raw, msgs, 2, 0, NULL, NULL, 0, &n, &e) == LLM_ERR_BUFFER_TOO_SMALL && n == 7, "size query");
    CHECK(llm_chat_render(raw, msgs, 2, 0, NULL, buf, 8, &n, &e) == LLM_OK, "exact buffer");
    CHECK(llm_chat_end_of_turn(raw, NULL, &len) == NULL, "raw has no end of turn");
    e = llm_chat_end_of_turn(raw, "llama3", &len);
    CHECK(e && len == 10 && !memcmp(e, "<|eot_id|>", 10), "llama3 end of turn");
    /* Llama 3.2's date: the desc, else SOURCE_DATE_EPOCH. */
    memset(&d, 0, sizeof d);
    d.date = "01 Feb 2025";
    llm_chat_render(l3, msgs, 1, 0, &d, buf, sizeof buf, &n, &e);
    CHECK(strstr(buf, "Today Date: 01 Feb 2025\n") != NULL, "date from the desc: %s", buf);
    setenv("SOURCE_DATE_EPOCH", "951782400", 1); /* 2000-02-29 */
    llm_chat_render(l3, msgs, 1, 0, NULL, buf, sizeof buf, &n, &e);
    CHECK(strstr(buf, "Today Date: 29 Feb 2000\n") != NULL, "leap day from SOURCE_DATE_EPOCH: %s", buf);
    setenv("SOURCE_DATE_EPOCH", "1721952000", 1);
    /* Unknown templates are raw; a list of named templates uses "default". */
    unknown = chat_tiny_model("{{ messages | map(attribute='content') | join('\\n') }}", "<s>", "</s>", &ci, &mem_unknown);
    CHECK(unknown && !strcmp(llm_chat_template(unknown), "raw"), "an unknown template must be raw");
    {
        const char *text = "[{\"name\": \"tool_use\", \"template\": \"x\"}, {\"name\": \"default\", \"template\": \"y\"}]";
        list = json_parse(text, strlen(text), jerr, sizeof jerr);
    }
    CHECK(list && llm__cv_chat_pick_template(list) && !strcmp(llm__cv_chat_pick_template(list), "y"), "list of templates");
    json_free(list);
    llm_model_close(raw);
    llm_model_close(unknown);
    free(mem);
    free(mem_unknown);
}

int main(void) {
    const char *dir = "../shared/testdata/chat";
    char path[512], err[256];
    json_value *templates, *conversations;
    int i;
    (void)llm__cv_convert_chat; /* the directory step is exercised by the converter tests */
    snprintf(path, sizeof path, "%s/templates.json", dir);
    if (!(templates = json_parse_file(path, err, sizeof err))) {
        FILE *f = fopen(path, "rb");
        if (!f) return skip_test("test_chat", "../shared/testdata/chat");
        fclose(f);
        printf("FAIL %s\n", err);
        return 1;
    }
    setenv("SOURCE_DATE_EPOCH", "1721952000", 1); /* 26 Jul 2024, the date of the renderings */
    snprintf(path, sizeof path, "%s/conversations.jsonl", dir);
    conversations = read_conversations(path);
    snprintf(path, sizeof path, "%s/expected.jsonl", dir);
    run_file(templates, path, conversations, "expected.jsonl");
    run_file(templates, "tests/data/chat_cases.jsonl", NULL, "tests/data/chat_cases.jsonl");
    test_api(templates);
    for (i = 0; i < n_models; i++) { llm_model_close(models[i].m); free(models[i].mem); free(models[i].name); llm__cv_chat_info_free(&models[i].ci); }
    json_free(conversations);
    json_free(templates);
    return check_summary("chat templates: all checks passed");
}
