/* convert_chat.h - the converter's chat template step (included by tools/convert.c).

   Reads the chat template (chat_template.jinja, else tokenizer_config.json's chat_template:
   a string, or a list of {name, template} of which HF uses "default"), recognises it by
   ordered substring rules, and stores in the model file (docs/FORMAT.md): the raw text
   (tokenizer.chat_template), the family and variant (chat.family, chat.variant), the literal
   text the renderer needs (chat.default_system, chat.date) and the bos/eos token strings
   (chat.bos_token, chat.eos_token). A template no rule matches is stored with family "raw"
   and a warning: llm_chat_render never guesses. Needs llm.h and json.h included first. */
#ifndef LLM_TOOLS_CONVERT_CHAT_H
#define LLM_TOOLS_CONVERT_CHAT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

typedef struct chat_rule {
    const char *variant, *family;
    const char *all[4];   /* every one must occur */
    const char *none[4];  /* none may occur */
} chat_rule;

/* First match wins; later rules may rely on earlier ones having failed. */
static const chat_rule chat_rules[] = {
    { "llama3.2", "llama3", { "<|start_header_id|>", "Cutting Knowledge Date", "strftime_now", "date_string" }, { 0 } },
    { "llama3.1", "llama3", { "<|start_header_id|>", "Cutting Knowledge Date", "set date_string = \"" }, { "strftime_now" } },
    { "llama3", "llama3", { "<|start_header_id|>", "<|eot_id|>", "bos_token + content", "add_generation_prompt" }, { "Cutting Knowledge", "tools" } },
    { "llama3-base", "llama3", { "<|start_header_id|>", "<|eot_id|>", "bos_token + content" }, { "add_generation_prompt", "Cutting Knowledge", "tools" } },
    { "qwen3", "chatml", { "<|im_start|>", "<think>", "last_query_index", "enable_thinking" }, { 0 } },
    { "qwen2.5", "chatml", { "<|im_start|>", "<tool_response>", "messages[0]['role'] == 'system'" }, { "<think>" } },
    { "smollm2", "chatml", { "<|im_start|>", "loop.first and messages[0]['role'] != 'system'" }, { "tools", "<think>" } },
    { "chatml", "chatml", { "'<|im_start|>' + message['role'] + '", "message['content'] + '<|im_end|>'", "add_generation_prompt" },
      { "tools", "<think>", "messages[0]", "loop.first" } },
    { "gemma2", "gemma", { "<start_of_turn>", "System role not supported", "'model'" }, { 0 } },
    { "gemma3", "gemma", { "<start_of_turn>", "first_user_prefix", "\"model\"" }, { 0 } },
    { "llama2", "llama2", { "[INST]", "<<SYS>>", "bos_token + '[INST] '", "content.strip()" }, { 0 } },
    { "mistral-v3", "mistral", { "[AVAILABLE_TOOLS]", "\"[INST] \" + system_message", "loop.last and system_message is defined" }, { "<<SYS>>" } },
    { "mistral-v1", "mistral", { "' [INST] ' + system_message", "loop.first and system_message is defined" }, { "<<SYS>>", "[AVAILABLE_TOOLS]" } },
    { "mistral-v0.1-legacy", "mistral", { "'[INST] ' + message['content'] + ' [/INST]'", "eos_token + ' '", "Only user and assistant roles are supported!" }, { "system_message" } },
    { "mistral-v0.2-legacy", "mistral", { "'[INST] ' + message['content'] + ' [/INST]'", "message['content'] + eos_token", "Only user and assistant roles are supported!" }, { "system_message", "eos_token + ' '" } },
    { "zephyr", "zephyr", { "'<|user|>", "'<|assistant|>'", "eos_token", "loop.last and add_generation_prompt" }, { 0 } },
};

typedef struct chat_info {
    const char *variant, *family;
    char *default_system;  /* chatml templates that add a system turn (smollm2, qwen2.5) */
    char *date;            /* llama3.1's fixed date_string */
} chat_info;

/* Text from p up to the delimiter, with the Jinja string escapes \n \t \\ \' \" decoded. */
static char *chat_literal(const char *p, const char *delim) {
    const char *end = strstr(p, delim);
    char *s, *o;
    if (!end || !(s = o = (char *)malloc((size_t)(end - p) + 1))) return NULL;
    for (; p < end; p++) {
        if (*p == '\\' && p + 1 < end) {
            p++;
            *o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return s;
}

/* The default system text: a literal "<|im_start|>system\n..." that is not followed by a
   quote (which would mean the text comes from the messages). */
static char *chat_default_system(const char *t) {
    const char *p = t;
    while ((p = strstr(p, "<|im_start|>system")) != NULL) {
        p += strlen("<|im_start|>system");
        if (*p == '\n') p++;
        else if (p[0] == '\\' && p[1] == 'n') p += 2;
        else continue;
        if (*p != '\'' && *p != '"') return chat_literal(p, "<|im_end|>");
    }
    return NULL;
}

/* Returns 0 and fills ci when a rule matches; -1 leaves family raw. */
static int chat_recognise(const char *t, chat_info *ci) {
    size_t r, k;
    memset(ci, 0, sizeof *ci);
    ci->variant = ci->family = "raw";
    for (r = 0; r < sizeof chat_rules / sizeof chat_rules[0]; r++) {
        const chat_rule *rule = &chat_rules[r];
        int ok = 1;
        for (k = 0; k < 4 && ok; k++) {
            if (rule->all[k] && !strstr(t, rule->all[k])) ok = 0;
            if (rule->none[k] && strstr(t, rule->none[k])) ok = 0;
        }
        if (!ok) continue;
        if (!strcmp(rule->variant, "smollm2") || !strcmp(rule->variant, "qwen2.5")) {
            if (!(ci->default_system = chat_default_system(t))) continue;
        }
        if (!strcmp(rule->variant, "llama3.1") && !(ci->date = chat_literal(strstr(t, "set date_string = \"") + 19, "\"")))
            continue;
        ci->variant = rule->variant;
        ci->family = rule->family;
        return 0;
    }
    return -1;
}

static void chat_info_free(chat_info *ci) {
    free(ci->default_system);
    free(ci->date);
}

/* tokenizer_config.json's chat_template: a string, or HF's list of named templates. */
static const char *chat_pick_template(const json_value *v) {
    size_t i;
    if (!v) return NULL;
    if (v->type == JSON_STRING) return v->str;
    if (v->type != JSON_ARRAY) return NULL;
    for (i = 0; i < v->len; i++) {
        const json_value *name = json_get(&v->items[i], "name"), *tmpl = json_get(&v->items[i], "template");
        if (name && name->type == JSON_STRING && !strcmp(name->str, "default") && tmpl && tmpl->type == JSON_STRING)
            return tmpl->str;
    }
    return NULL;
}

/* A special token in tokenizer_config.json: a string, or an AddedToken {"content": ...}. */
static const char *chat_token_string(const json_value *v) {
    if (v && v->type == JSON_OBJECT) v = json_get(v, "content");
    return v && v->type == JSON_STRING ? v->str : NULL;
}

static int chat_set_string(llm_builder *b, const char *key, const char *s) {
    return s ? llm_builder_set_string(b, key, s, strlen(s)) != LLM_OK : 0;
}

/* Writes the chat.* keys for a template (NULL: none). Returns 0, or -1 when out of memory. */
static int chat_set_meta(llm_builder *b, const char *tmpl, const char *bos, const char *eos, chat_info *ci) {
    int r = 0;
    if (tmpl) chat_recognise(tmpl, ci);
    else { memset(ci, 0, sizeof *ci); ci->variant = ci->family = "raw"; }
    r |= chat_set_string(b, "tokenizer.chat_template", tmpl);
    r |= chat_set_string(b, "chat.family", ci->family);
    r |= chat_set_string(b, "chat.variant", ci->variant);
    r |= chat_set_string(b, "chat.bos_token", bos);
    r |= chat_set_string(b, "chat.eos_token", eos);
    r |= chat_set_string(b, "chat.default_system", ci->default_system);
    r |= chat_set_string(b, "chat.date", ci->date);
    return r ? -1 : 0;
}

/* Absent is no error; present but unreadable (a directory, no permission) is. */
static int chat_file_missing(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return !f && errno == ENOENT;
}

/* The converter's one call: reads dir's template files and adds the chat keys to b.
   Returns 0, or -1 with a message in err. */
static int convert_chat(llm_builder *b, const char *dir, char *err, size_t err_size) {
    char path[4096];
    json_value *cfg = NULL;
    const json_value *ct = NULL;
    char *jinja = NULL;
    const char *tmpl = NULL;
    size_t n;
    chat_info ci;
    int rc;
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    if (!chat_file_missing(path)) {
        if (!(cfg = json_parse_file_ex(path, JSON_NO_NUL, err, err_size))) return -1;
        if (cfg->type != JSON_OBJECT) {
            snprintf(err, err_size, "%.900s: not a JSON object (found %s)", path, json_type_name(cfg->type));
            json_free(cfg);
            return -1;
        }
    }
    snprintf(path, sizeof path, "%s/chat_template.jinja", dir); /* newer transformers save it here */
    if (!chat_file_missing(path)) {
        if (!(jinja = json_read_file(path, &n, err, err_size))) { json_free(cfg); return -1; }
        if (strlen(jinja) != n) { /* the template is text and is used as a C string */
            snprintf(err, err_size, "%.900s: holds a NUL byte at byte %lu", path, (unsigned long)strlen(jinja));
            free(jinja);
            json_free(cfg);
            return -1;
        }
    }
    if (cfg) ct = json_get(cfg, "chat_template");
    tmpl = jinja ? jinja : chat_pick_template(ct);
    if (!tmpl && ct && ct->type != JSON_NULL)
        fprintf(stderr, "convert: warning: tokenizer_config.json's chat_template has no \"default\" template; no chat template stored\n");
    rc = chat_set_meta(b, tmpl, cfg ? chat_token_string(json_get(cfg, "bos_token")) : NULL,
                       cfg ? chat_token_string(json_get(cfg, "eos_token")) : NULL, &ci);
    if (rc) snprintf(err, err_size, "cannot build chat metadata (out of memory)");
    else if (!tmpl) printf("convert: no chat template (family raw)\n");
    else if (!strcmp(ci.family, "raw"))
        fprintf(stderr, "convert: warning: the chat template is not one llm.h knows; stored as family raw "
                        "(the chat program's --template NAME chooses one)\n");
    else printf("convert: chat template %s (family %s)\n", ci.variant, ci.family);
    chat_info_free(&ci);
    free(jinja);
    json_free(cfg);
    return rc;
}

#endif
