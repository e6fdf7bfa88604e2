/* chat: talk to a model in the terminal, or print the prompt a conversation renders to.

   build/chat -m model.llm [-s "system prompt"] [--template NAME] [sampling flags] [-c n_ctx] [-t threads]
   build/chat -m model.llm --print-prompt [--template NAME] [--no-generation-prompt] < conversation.jsonl

   --print-prompt reads a conversation as JSON Lines, one {"role": ..., "content": ...} per
   line, and writes exactly the text the chat template renders (nothing else) to stdout. */
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define JSON_IMPLEMENTATION
#include "../tools/json.h"
#include "sampling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: chat -m model.llm [options]\n"
            "  -m FILE                  model file (.llm)\n"
            "  --template NAME          chat template (default: the model's); one of\n"
            "                          ");
    {
        size_t i;
        for (i = 0; llm_chat_template_name(i); i++) fprintf(f, " %s", llm_chat_template_name(i));
    }
    fprintf(f,
            "\n"
            "  --no-thinking            qwen3: thinking off (an empty think block)\n"
            "  --print-prompt           read a conversation as JSON Lines on stdin, print its prompt, exit\n"
            "  --no-generation-prompt   with --print-prompt: without the assistant turn's opening\n");
}

typedef struct conversation {
    llm_chat_message *msgs;
    size_t n, cap;
} conversation;

static char *dup_string(const char *s, size_t n) {
    char *d = (char *)malloc(n + 1);
    if (d) { memcpy(d, s, n); d[n] = 0; }
    return d;
}

static int conv_add(conversation *c, const char *role, const char *content, size_t len) {
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        llm_chat_message *m = (llm_chat_message *)realloc(c->msgs, cap * sizeof *m);
        if (!m) return -1;
        c->msgs = m;
        c->cap = cap;
    }
    c->msgs[c->n].role = dup_string(role, strlen(role));
    c->msgs[c->n].content = dup_string(content, len);
    if (!c->msgs[c->n].role || !c->msgs[c->n].content) return -1;
    c->n++;
    return 0;
}

static void conv_remove(conversation *c, size_t first, size_t count) {
    size_t i;
    for (i = first; i < first + count; i++) { free((void *)c->msgs[i].role); free((void *)c->msgs[i].content); }
    memmove(c->msgs + first, c->msgs + first + count, (c->n - first - count) * sizeof *c->msgs);
    c->n -= count;
}

static char *read_stream(FILE *f, size_t *n) {
    char *buf = NULL, *p;
    size_t cap = 0, got;
    *n = 0;
    do {
        if (cap - *n < 4096) {
            cap = cap * 2 + 4096;
            if (!(p = (char *)realloc(buf, cap + 1))) { free(buf); return NULL; }
            buf = p;
        }
        got = fread(buf + *n, 1, cap - *n, f);
        *n += got;
    } while (got > 0);
    buf[*n] = 0;
    return buf;
}

/* One message per non-blank line: {"role": "...", "content": "..."}. */
static int read_jsonl(FILE *f, conversation *c) {
    size_t n, line = 0;
    char *text = read_stream(f, &n), *p, *end, err[200];
    if (!text) { fprintf(stderr, "chat: cannot read stdin\n"); return -1; }
    for (p = text; p < text + n; p = end + 1) {
        json_value *v;
        const json_value *role, *content;
        end = (char *)memchr(p, '\n', (size_t)(text + n - p));
        if (!end) end = text + n;
        line++;
        if (strspn(p, " \t\r") >= (size_t)(end - p)) continue;
        if (!(v = json_parse(p, (size_t)(end - p), err, sizeof err))) {
            fprintf(stderr, "chat: stdin line %lu: %s\n", (unsigned long)line, err);
            free(text);
            return -1;
        }
        role = json_get(v, "role");
        content = json_get(v, "content");
        if (!role || role->type != JSON_STRING || !content || content->type != JSON_STRING ||
            strlen(content->str) != content->len || strlen(role->str) != role->len) {
            fprintf(stderr, "chat: stdin line %lu: expected {\"role\": string, \"content\": string without NUL}\n", (unsigned long)line);
            json_free(v);
            free(text);
            return -1;
        }
        if (conv_add(c, role->str, content->str, content->len)) { json_free(v); free(text); return -1; }
        json_free(v);
    }
    free(text);
    return 0;
}

/* Renders into *buf (grown as needed). Returns the result; prints the template's reason. */
static llm_result render(const llm_model *m, const conversation *c, int add_generation_prompt, const llm_chat_desc *d,
                         char **buf, size_t *cap, size_t *len) {
    const char *why = NULL;
    llm_result r = llm_chat_render(m, c->msgs, c->n, add_generation_prompt, d, *buf, *cap, len, &why);
    if (r == LLM_ERR_BUFFER_TOO_SMALL) {
        char *p = (char *)realloc(*buf, *len + 1);
        if (!p) return LLM_ERR_OUT_OF_MEMORY;
        *buf = p;
        *cap = *len + 1;
        r = llm_chat_render(m, c->msgs, c->n, add_generation_prompt, d, *buf, *cap, len, &why);
    }
    if (r == LLM_ERR_TEMPLATE) fprintf(stderr, "chat: the %s template rejects the conversation: %s\n",
                                       d->template_name ? d->template_name : llm_chat_template(m), why ? why : "?");
    else if (r != LLM_OK) fprintf(stderr, "chat: cannot render the conversation: %s\n", llm_result_string(r));
    return r;
}

static int print_prompt(const llm_model *m, const llm_chat_desc *d, int add_generation_prompt) {
    conversation c;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    int rc = 1;
    memset(&c, 0, sizeof c);
    if (read_jsonl(stdin, &c) == 0 && render(m, &c, add_generation_prompt, d, &buf, &cap, &len) == LLM_OK)
        rc = fwrite(buf, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : 1;
    free(buf);
    conv_remove(&c, 0, c.n);
    free(c.msgs);
    return rc;
}

/* llm_chat_render knows the names (and family names): ask it about an empty conversation. */
static int template_known(const llm_model *m, const llm_chat_desc *d) {
    size_t len;
    return llm_chat_render(m, NULL, 0, 0, d, NULL, 0, &len, NULL) != LLM_ERR_UNSUPPORTED;
}

static void log_stderr(void *user, const char *msg) { (void)user; fprintf(stderr, "chat: %s\n", msg); }

int main(int argc, char **argv) {
    const char *model_path = NULL;
    int prompt_only = 0, generation_prompt = 1, i, rc;
    llm_chat_desc chat;
    llm_model_desc md;
    llm_model *model;
    llm_result r;
    memset(&chat, 0, sizeof chat);
    memset(&md, 0, sizeof md);
    md.log = log_stderr;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!strcmp(a, "--print-prompt")) { prompt_only = 1; continue; }
        if (!strcmp(a, "--no-generation-prompt")) { generation_prompt = 0; continue; }
        if (!strcmp(a, "--no-thinking")) { chat.no_thinking = 1; continue; }
        if (!v) { fprintf(stderr, "chat: %s needs a value\n", a); return 2; }
        i++;
        if (!strcmp(a, "-m")) model_path = v;
        else if (!strcmp(a, "--template")) chat.template_name = v;
        else { fprintf(stderr, "chat: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    if (!model_path) { usage(stderr); return 2; }
    if ((r = llm_model_open(&model, model_path, &md)) != LLM_OK) {
        fprintf(stderr, "chat: cannot open %s: %s\n", model_path, llm_result_string(r));
        return 1;
    }
    if (!template_known(model, &chat)) {
        size_t k;
        fprintf(stderr, "chat: unknown template '%s'; known:", chat.template_name);
        for (k = 0; llm_chat_template_name(k); k++) fprintf(stderr, " %s", llm_chat_template_name(k));
        fprintf(stderr, "\n");
        llm_model_close(model);
        return 2;
    }
    if (prompt_only) rc = print_prompt(model, &chat, generation_prompt);
    else { fprintf(stderr, "chat: interactive chat needs a tokenizer\n"); rc = 1; }
    llm_model_close(model);
    return rc;
}
