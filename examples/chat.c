/* chat: talk to a model in the terminal, or print the prompt a conversation renders to.

   build/chat -m model.llm [-s "system prompt"] [--template NAME] [sampling flags] [-c n_ctx] [-t threads]
   build/chat -m model.llm --print-prompt [--template NAME] [--no-generation-prompt] < conversation.jsonl

   Each line read is a user message; the reply streams as it is generated. The whole
   conversation is rendered with the model's chat template every turn and handed to
   llm_generate, which evaluates only what the KV cache does not hold yet. Ctrl-C stops a
   reply (twice: the program); /reset, /save FILE, /load FILE, /quit, /help. With stdin not
   a terminal nothing but the replies (one after each message, then a newline) is written
   to stdout. /save writes the context's state (llm_ctx_save: tokens and KV cache) to FILE
   and the conversation to FILE.jsonl; /load reads them back, so a long system prompt or a
   conversation is evaluated once and continued later.

   --print-prompt reads a conversation as JSON Lines, one {"role": ..., "content": ...} per
   line, and writes exactly the text the chat template renders (nothing else) to stdout. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define JSON_IMPLEMENTATION
#include "../tools/json.h"
#include "sampling.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_WIN32)
#include <io.h>
#define isatty _isatty
#define fileno _fileno
#else
#include <unistd.h>
#endif

static void usage(FILE *f) {
    size_t i;
    fprintf(f,
            "usage: chat -m model.llm [options]\n"
            "  -m FILE                model file (.llm)\n"
            "  -s, -sys TEXT          system prompt (also --system-prompt); the seed is --seed\n"
            "  --template NAME        chat template (default: the model's):");
    for (i = 0; llm_chat_template_name(i); i++) fprintf(f, "%s%s", i % 8 == 0 ? "\n                          " : " ", llm_chat_template_name(i));
    fprintf(f,
            "\n"
            "  --no-thinking          qwen3: thinking off (an empty think block)\n"
            "  -n N                   most tokens per reply (default: a quarter of the context)\n"
            "  -c N                   context size in tokens (default: the model's, at most 4096)\n"
            "  -t N                   threads\n"
            "  --context-full MODE    when a turn does not fit: drop (the oldest turns, keeping the\n"
            "                         system prompt; default) or stop (say so and exit with status 3)\n"
            "  -v                     token counts and speeds of every turn on stderr\n"
            SAMPLING_USAGE
            "                         (defaults: --temp 0.8 --top-k 40 --top-p 0.95 --min-p 0.05, a random seed)\n"
            "  --print-prompt         read a conversation as JSON Lines on stdin, print its prompt, exit\n"
            "  --no-generation-prompt with --print-prompt: without the assistant turn's opening\n");
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
    if (count == 0) return; /* an empty conversation has no array to move within */
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
static int read_jsonl(FILE *f, const char *name, conversation *c) {
    size_t n, line = 0;
    char *text = read_stream(f, &n), *p, *end, err[200];
    if (!text) { fprintf(stderr, "chat: cannot read %s\n", name); return -1; }
    for (p = text; p < text + n; p = end + 1) {
        json_value *v;
        const json_value *role, *content;
        end = (char *)memchr(p, '\n', (size_t)(text + n - p));
        if (!end) end = text + n;
        line++;
        if (strspn(p, " \t\r") >= (size_t)(end - p)) continue;
        if (!(v = json_parse(p, (size_t)(end - p), err, sizeof err))) {
            fprintf(stderr, "chat: %s line %lu: %s\n", name, (unsigned long)line, err);
            free(text);
            return -1;
        }
        role = json_get(v, "role");
        content = json_get(v, "content");
        if (!role || role->type != JSON_STRING || !content || content->type != JSON_STRING ||
            strlen(content->str) != content->len || strlen(role->str) != role->len) {
            fprintf(stderr, "chat: %s line %lu: expected {\"role\": string, \"content\": string without NUL}\n", name, (unsigned long)line);
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
    if (read_jsonl(stdin, "stdin", &c) == 0 && render(m, &c, add_generation_prompt, d, &buf, &cap, &len) == LLM_OK)
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

/* ---- the chat ---------------------------------------------------------------------------- */
static volatile sig_atomic_t interrupted; /* Ctrl-C: stop the reply; a second one before it stops quits */

static void on_sigint(int sig) {
    if (interrupted) _Exit(130);
    interrupted = 1;
#if defined(_WIN32)
    signal(sig, on_sigint);
#else
    (void)sig;
#endif
}

static void catch_sigint(void) {
#if defined(_WIN32)
    signal(SIGINT, on_sigint);
#else
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint; /* no SA_RESTART: Ctrl-C at the prompt ends the read */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
#endif
}

#define COLOR_USER "\033[32m"
#define COLOR_REPLY "\033[33m"
#define COLOR_NOTE "\033[2m"
#define COLOR_OFF "\033[0m"

typedef struct chat_state {
    llm_model *model;
    llm_ctx *ctx;
    llm_chat_desc chat;
    llm_sampler sampler;
    llm_generate_desc gen;
    conversation conv;
    size_t n_system;            /* 1 when the conversation starts with a system message */
    char *prompt, *reply;
    size_t prompt_cap, reply_len, reply_cap;
    int shown;                  /* the reply has shown something (its leading white space is not shown) */
    int tty_in, color, verbose, stop_when_full;
} chat_state;

static void note(const chat_state *s, const char *fmt, const char *arg) {
    if (s->color) fputs(COLOR_NOTE, stderr);
    fprintf(stderr, fmt, arg);
    if (s->color) fputs(COLOR_OFF, stderr);
    fputc('\n', stderr);
}

/* Streams a piece to stdout and keeps it for the conversation. */
static int on_token(void *user, const char *piece, size_t len, int32_t id) {
    chat_state *s = (chat_state *)user;
    (void)id;
    if (interrupted || !piece) return interrupted != 0;
    if (s->reply_len + len + 1 > s->reply_cap) {
        size_t cap = (s->reply_len + len + 1) * 2;
        char *p = (char *)realloc(s->reply, cap);
        if (!p) return 1;
        s->reply = p;
        s->reply_cap = cap;
    }
    memcpy(s->reply + s->reply_len, piece, len);
    s->reply_len += len;
    s->reply[s->reply_len] = 0;
    if (!s->shown) while (len && strchr(" \t\r\n", *piece)) { piece++; len--; }
    if (len) {
        s->shown = 1;
        fwrite(piece, 1, len, stdout);
        fflush(stdout);
    }
    return interrupted != 0;
}

/* The oldest turn after the system prompt: a user message and the reply to it. The newest
   message stays. Returns 0 when there is nothing to drop. */
static int drop_oldest_turn(chat_state *s) {
    size_t first = s->n_system, count = 1;
    if (s->conv.n <= first + 1) return 0;
    if (first + 2 < s->conv.n && !strcmp(s->conv.msgs[first + 1].role, "assistant")) count = 2;
    conv_remove(&s->conv, first, count);
    return 1;
}

static const char *stop_reason(llm_stop stop) {
    switch (stop) {
    case LLM_STOP_TOKEN: return "end of turn";
    case LLM_STOP_MAX: return "reply limit";
    case LLM_STOP_CALLBACK: return "interrupted";
    case LLM_STOP_CONTEXT_FULL: return "context full";
    default: return "error";
    }
}

/* One user message and its reply. Returns 0 to go on, 1 on an error, 3 when the context is
   full and the chat should stop. */
static int chat_turn(chat_state *s, const char *line) {
    llm_generate_stats st;
    llm_result r;
    size_t len;
    char detail[160];
    if (conv_add(&s->conv, "user", line, strlen(line))) return 1;
    for (;;) {
        if (render(s->model, &s->conv, 1, &s->chat, &s->prompt, &s->prompt_cap, &len) != LLM_OK) {
            conv_remove(&s->conv, s->conv.n - 1, 1);
            return 0;
        }
        s->reply_len = 0;
        s->shown = 0;
        interrupted = 0;
        if (s->color) fputs(COLOR_REPLY, stdout);
        r = llm_generate(s->ctx, s->prompt, len, &s->gen, &st);
        if (r != LLM_ERR_CONTEXT_FULL) break;
        if (s->color) fputs(COLOR_OFF, stdout);
        snprintf(detail, sizeof detail, "the conversation needs %d tokens and the reply %d; it holds %d", st.n_prompt, s->gen.n_reserve,
                 llm_ctx_size(s->ctx));
        if (s->stop_when_full) { note(s, "chat: the context is full (%s); stopping", detail); return 3; }
        if (!drop_oldest_turn(s)) {
            note(s, "chat: the message does not fit in the context (%s)", detail);
            conv_remove(&s->conv, s->conv.n - 1, 1);
            return 0;
        }
        note(s, "chat: the context is full (%s): dropped the oldest turn", detail);
    }
    if (s->color) fputs(COLOR_OFF, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    if (r != LLM_OK) { fprintf(stderr, "chat: %s: %s\n", llm_result_string(r), llm_ctx_error(s->ctx)); return 1; }
    if (conv_add(&s->conv, "assistant", s->reply ? s->reply : "", s->reply_len)) return 1;
    if (s->verbose)
        fprintf(stderr, "chat: prompt %d tokens (%d reused, %d evaluated, %.1f tok/s), reply %d tokens (%.1f tok/s), %s\n",
                st.n_prompt, st.n_reused, st.n_evaluated, st.prompt_tokens_per_s, st.n_generated, st.gen_tokens_per_s,
                stop_reason(st.stop));
    if (st.stop == LLM_STOP_CALLBACK && s->tty_in) note(s, "(stopped)", "");
    if (st.stop == LLM_STOP_CONTEXT_FULL) {
        snprintf(detail, sizeof detail, "%d tokens", llm_ctx_size(s->ctx));
        if (s->stop_when_full) { note(s, "chat: the context (%s) is full; stopping", detail); return 3; }
        note(s, "chat: the context (%s) is full; the next turn drops the oldest turns", detail);
    }
    return 0;
}

/* A line of any length without its line end; NULL at the end of input. *was_interrupted
   tells a Ctrl-C at the prompt. */
static char *read_line(char **buf, size_t *cap, int *was_interrupted) {
    size_t n = 0;
    *was_interrupted = 0;
    for (;;) {
        if (*cap - n < 256) {
            char *p = (char *)realloc(*buf, *cap * 2 + 256);
            if (!p) return NULL;
            *buf = p;
            *cap = *cap * 2 + 256;
        }
        if (!fgets(*buf + n, (int)(*cap - n), stdin)) {
            if (ferror(stdin) && errno == EINTR) { clearerr(stdin); *was_interrupted = 1; return NULL; }
            if (n == 0) return NULL;
            break;
        }
        n += strlen(*buf + n);
        if (n && (*buf)[n - 1] == '\n') break;
    }
    while (n && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r')) n--;
    (*buf)[n] = 0;
    return *buf;
}

static void help(const chat_state *s) {
    fprintf(stderr, "%s  /reset  start a new conversation (the system prompt stays)\n"
                    "  /save FILE  save the context (tokens, KV cache) to FILE, the conversation to FILE.jsonl\n"
                    "  /load FILE  load them back: the conversation goes on without evaluating it again\n"
                    "  /quit   leave (or Ctrl-D)\n"
                    "  /help   this text\n"
                    "  Ctrl-C stops a reply; twice quits.%s\n", s->color ? COLOR_NOTE : "", s->color ? COLOR_OFF : "");
}

static void put_json_string(FILE *f, const char *p) {
    fputc('"', f);
    for (; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* /save FILE: the context's state to FILE, the conversation to FILE.jsonl. */
static void save_session(chat_state *s, const char *path) {
    char conv_path[4096], msg[4200];
    FILE *f;
    size_t i;
    int ok;
    if (llm_ctx_save(s->ctx, path) != LLM_OK) { note(s, "chat: cannot save: %s", llm_ctx_error(s->ctx)); return; }
    snprintf(conv_path, sizeof conv_path, "%s.jsonl", path);
    if (!(f = fopen(conv_path, "wb"))) { note(s, "chat: cannot create %s", conv_path); return; }
    for (i = 0; i < s->conv.n; i++) {
        fputs("{\"role\": ", f);
        put_json_string(f, s->conv.msgs[i].role);
        fputs(", \"content\": ", f);
        put_json_string(f, s->conv.msgs[i].content);
        fputs("}\n", f);
    }
    ok = !ferror(f);
    if (fclose(f) != 0 || !ok) { note(s, "chat: cannot write %s", conv_path); return; }
    snprintf(msg, sizeof msg, "%d tokens and %lu messages to %s", llm_ctx_pos(s->ctx), (unsigned long)s->conv.n, path);
    note(s, "chat: saved %s", msg);
}

/* /load FILE: the state, and the conversation of FILE.jsonl when there is one. */
static void load_session(chat_state *s, const char *path) {
    char conv_path[4096], msg[4200];
    conversation c;
    FILE *f;
    if (llm_ctx_load(s->ctx, path) != LLM_OK) { note(s, "chat: cannot load: %s", llm_ctx_error(s->ctx)); return; }
    snprintf(conv_path, sizeof conv_path, "%s.jsonl", path);
    memset(&c, 0, sizeof c);
    if ((f = fopen(conv_path, "rb")) != NULL) {
        if (read_jsonl(f, conv_path, &c) == 0) {
            conv_remove(&s->conv, 0, s->conv.n);
            free(s->conv.msgs);
            s->conv = c;
            s->n_system = c.n && !strcmp(c.msgs[0].role, "system");
        } else {
            conv_remove(&c, 0, c.n);
            free(c.msgs);
        }
        fclose(f);
    }
    snprintf(msg, sizeof msg, "%d tokens and %lu messages from %s", llm_ctx_pos(s->ctx), (unsigned long)s->conv.n, path);
    note(s, "chat: loaded %s", msg);
}

static int chat_loop(chat_state *s) {
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, intr;
    if (s->tty_in) {
        fprintf(stderr, "%schat: template %s, context %d tokens. /help for commands.%s\n", s->color ? COLOR_NOTE : "",
                s->chat.template_name ? s->chat.template_name : llm_chat_template(s->model), llm_ctx_size(s->ctx),
                s->color ? COLOR_OFF : "");
    }
    for (;;) {
        if (s->tty_in) {
            fputs(s->color ? COLOR_USER "> " COLOR_OFF : "> ", stdout);
            fflush(stdout);
        }
        interrupted = 0;
        if (!read_line(&line, &cap, &intr)) {
            if (intr) { fputs("\n", stdout); if (s->tty_in) note(s, "(/quit or Ctrl-D to leave)", ""); continue; }
            if (s->tty_in) fputc('\n', stdout);
            break;
        }
        if (line[0] == '/') {
            if (!strcmp(line, "/quit") || !strcmp(line, "/exit")) break;
            if (!strcmp(line, "/help")) { help(s); continue; }
            if (!strcmp(line, "/reset")) {
                conv_remove(&s->conv, s->n_system, s->conv.n - s->n_system);
                if (s->tty_in) note(s, "(new conversation)", "");
                continue;
            }
            if (!strncmp(line, "/save ", 6) && line[6]) { save_session(s, line + 6); continue; }
            if (!strncmp(line, "/load ", 6) && line[6]) { load_session(s, line + 6); continue; }
            note(s, "chat: unknown command %s (/help lists them)", line);
            continue;
        }
        if (!line[strspn(line, " \t")]) continue;
        if ((rc = chat_turn(s, line)) != 0) break;
    }
    free(line);
    return rc;
}

static int open_chat(chat_state *s, const char *system, const llm_ctx_desc *cd, int max_reply) {
    llm_result r;
    if ((r = llm_ctx_open(&s->ctx, s->model, cd)) != LLM_OK) {
        fprintf(stderr, "chat: cannot create a context: %s\n", llm_result_string(r));
        return 1;
    }
    if (!llm_tokenizer_info_get(s->model)) {
        fprintf(stderr, "chat: the model file has no tokenizer (convert it from a directory with tokenizer.json)\n");
        return 1;
    }
    if (system) {
        if (conv_add(&s->conv, "system", system, strlen(system))) return 1;
        s->n_system = 1;
    }
    if (max_reply == 0) max_reply = llm_ctx_size(s->ctx) / 4;
    s->gen.sampler = &s->sampler;
    s->gen.max_tokens = max_reply;
    s->gen.n_reserve = max_reply < llm_ctx_size(s->ctx) / 2 ? max_reply : llm_ctx_size(s->ctx) / 2;
    s->gen.template_name = s->chat.template_name;
    s->gen.on_token = on_token;
    s->gen.user = s;
    return 0;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *system = NULL;
    int prompt_only = 0, generation_prompt = 1, max_reply = 0, i, rc;
    chat_state s;
    llm_ctx_desc cd;
    llm_model_desc md;
    llm_result r;
    memset(&s, 0, sizeof s);
    memset(&cd, 0, sizeof cd);
    memset(&md, 0, sizeof md);
    md.log = log_stderr;
    s.sampler.temperature = 0.8f; /* llama.cpp's defaults */
    s.sampler.top_k = 40;
    s.sampler.top_p = 0.95f;
    s.sampler.min_p = 0.05f;
    s.sampler.seed = (uint64_t)time(NULL);
    for (i = 1; i < argc; i++) {
        /* In chat, -s is the system prompt (seeds are --seed), as the chat interface documents. */
        const char *a = strcmp(argv[i], "-s") ? flag_name(argv[i]) : "-sys", *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k;
        if (!strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "--print-prompt")) { prompt_only = 1; continue; }
        if (!strcmp(a, "--no-generation-prompt")) { generation_prompt = 0; continue; }
        if (!strcmp(a, "--no-thinking")) { s.chat.no_thinking = 1; continue; }
        if (!strcmp(a, "-v")) { s.verbose = 1; continue; }
        if (!v) { fprintf(stderr, "chat: %s needs a value\n", a); return 2; }
        i++;
        if ((k = sampling_flag(a, v, &s.sampler)) != 0) {
            if (k < 0) { fprintf(stderr, "chat: bad value '%s' for %s\n", v, a); return 2; }
        } else if (!strcmp(a, "-m")) model_path = v;
        else if (!strcmp(a, "-sys")) system = v;
        else if (!strcmp(a, "--template")) s.chat.template_name = v;
        else if (!strcmp(a, "-n")) max_reply = atoi(v);
        else if (!strcmp(a, "-c")) cd.n_ctx = atoi(v);
        else if (!strcmp(a, "-t")) cd.n_threads = atoi(v);
        else if (!strcmp(a, "--context-full") && (!strcmp(v, "drop") || !strcmp(v, "stop"))) s.stop_when_full = !strcmp(v, "stop");
        else { fprintf(stderr, "chat: unknown option '%s %s'\n", a, v); usage(stderr); return 2; }
    }
    sampling_done(&s.sampler);
    if (!model_path) { usage(stderr); return 2; }
    if (max_reply < 0 || cd.n_ctx < 0 || cd.n_threads < 0) { fprintf(stderr, "chat: negative value\n"); return 2; }
    md.vocab_only = prompt_only; /* the prompt needs no weights: a vocab-only file will do */
    if ((r = llm_model_open(&s.model, model_path, &md)) != LLM_OK) {
        fprintf(stderr, "chat: cannot open %s: %s\n", model_path, llm_result_string(r));
        return 1;
    }
    if (!template_known(s.model, &s.chat)) {
        size_t k;
        fprintf(stderr, "chat: unknown template '%s'; known:", s.chat.template_name);
        for (k = 0; llm_chat_template_name(k); k++) fprintf(stderr, " %s", llm_chat_template_name(k));
        fprintf(stderr, "\n");
        llm_model_close(s.model);
        return 2;
    }
    if (prompt_only) {
        rc = print_prompt(s.model, &s.chat, generation_prompt);
    } else if ((rc = open_chat(&s, system, &cd, max_reply)) == 0) {
        s.tty_in = isatty(fileno(stdin));
        s.color = s.tty_in && isatty(fileno(stdout)) && isatty(fileno(stderr));
        catch_sigint();
        rc = chat_loop(&s);
    }
    conv_remove(&s.conv, 0, s.conv.n);
    free(s.conv.msgs);
    free(s.prompt);
    free(s.reply);
    llm_ctx_close(s.ctx);
    llm_model_close(s.model);
    return rc;
}
