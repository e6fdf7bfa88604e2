/* chat: talk to a model in the terminal, or print the prompt a conversation renders to.

   build/chat -m model.llm [-sys "system prompt" | -f FILE] [--template NAME] [sampling flags] [-c n_ctx] [-t threads]
   build/chat -m model.llm --print-prompt [--template NAME] [--no-generation-prompt] < conversation.jsonl

   Each line read is a user message; the reply streams as it is generated. The whole
   conversation is rendered with the model's chat template every turn and handed to
   llm_generate, which evaluates only what the KV cache does not hold yet. Ctrl-C stops a
   reply (twice: the program); /reset, /save FILE, /load FILE, /quit, /help. With stdin not
   a terminal nothing but the replies (one after each message, then a newline) is written
   to stdout, and the exit status is 1 when a message could not be answered. /save writes
   the context's state (llm_ctx_save: tokens and KV cache) to FILE and the conversation to
   FILE.jsonl; /load reads them back, so a long system prompt or a conversation is
   evaluated once and continued later.

   --print-prompt reads a conversation as JSON Lines, one {"role": ..., "content": ...} per
   line, and writes exactly the text the chat template renders (nothing else) to stdout. */
#define _POSIX_C_SOURCE 200809L
#include "../llm.h"
#define JSON_IMPLEMENTATION
#include "../tools/json.h"
#include "sampling.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#if defined(_WIN32)
#include <io.h>
#include <process.h>
#define isatty _isatty
#define fileno _fileno
#define getpid _getpid
#else
#include <unistd.h>
#endif

static void usage(FILE *f) {
    size_t i;
    fprintf(f,
            "usage: chat -m model.llm [options]\n"
            "  -m FILE                model file (.llm)\n"
            "  -sys TEXT              system prompt (also --system-prompt)\n"
            "  -f FILE                the system prompt from FILE (also --file; one final newline is dropped)\n"
            "  --template NAME        chat template (default: the model's):");
    for (i = 0; llm_chat_template_name(i); i++) fprintf(f, "%s%s", i % 8 == 0 ? "\n                          " : " ", llm_chat_template_name(i));
    fprintf(f,
            "\n"
            "  --jinja-file FILE      render with the Jinja chat template in FILE instead of the model's\n"
            "  --tools FILE           the tools the template offers the model: a JSON list in FILE\n"
            "  --no-thinking          thinking off (enable_thinking=false; qwen3: an empty think block)\n"
            "  -n N                   most tokens per reply (default: a quarter of the context)\n"
            "  -c N                   context size in tokens (default: the model's, at most 4096)\n"
            "  -b N                   prompt tokens evaluated per batch (default 64)\n"
            "  -t N                   threads\n"
            "  --bf16-dot             prompts of bf16 weights with activations rounded to bf16: faster where\n"
            "                         the CPU has bf16 dot products (AVX512-BF16), not exact f32\n"
            "  --no-mmap              read the weights into memory instead of mapping the file\n"
            "  --context-full MODE    when a turn does not fit: drop (the oldest turns, keeping the\n"
            "                         system prompt; default) or stop (say so and exit with status 3)\n"
            "  -v                     token counts and speeds of every turn on stderr\n"
            SAMPLING_USAGE
            "                         (defaults: --temp 0.8 --top-k 40 --top-p 0.95 --min-p 0.05, a random seed)\n"
            "  --print-prompt         read a conversation as JSON Lines on stdin, print its prompt, exit\n"
            "  --no-generation-prompt with --print-prompt: without the assistant turn's opening\n"
            "  --render-jsonl         no model: each stdin line {\"template\": SOURCE, VARIABLE: VALUE, ...}\n"
            "                         is answered by one line {\"text\": ...} or {\"error\": ...}\n");
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
    char *r, *t;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        llm_chat_message *m = (llm_chat_message *)realloc(c->msgs, cap * sizeof *m);
        if (!m) return -1;
        c->msgs = m;
        c->cap = cap;
    }
    r = dup_string(role, strlen(role));
    t = dup_string(content, len);
    if (!r || !t) { free(r); free(t); return -1; }
    c->msgs[c->n].role = r;
    c->msgs[c->n].content = t;
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

static void conv_free(conversation *c) {
    conv_remove(c, 0, c->n);
    free(c->msgs);
    memset(c, 0, sizeof *c);
}

/* All of f; NULL after saying why. A read error (stdin a directory) is not an empty input. */
static char *read_stream(FILE *f, const char *name, size_t *n) {
    char *buf = NULL, *p;
    size_t cap = 0, got;
    *n = 0;
    do {
        if (cap - *n < 4096) {
            cap = cap * 2 + 4096;
            if (!(p = (char *)realloc(buf, cap + 1))) { free(buf); fprintf(stderr, "chat: %s: out of memory\n", name); return NULL; }
            buf = p;
        }
        errno = 0;
        got = fread(buf + *n, 1, cap - *n, f);
        *n += got;
    } while (got > 0);
    if (ferror(f)) {
        fprintf(stderr, "chat: cannot read %s: %s\n", name, strerror(errno ? errno : EIO));
        free(buf);
        return NULL;
    }
    buf[*n] = 0;
    return buf;
}

/* Appends text to the growing string *s (*n bytes, NUL-terminated). */
static int append(char **s, size_t *n, const char *text, size_t len) {
    char *p = (char *)realloc(*s, *n + len + 1);
    if (!p) return -1;
    memcpy(p + *n, text, len);
    *n += len;
    p[*n] = 0;
    *s = p;
    return 0;
}

/* One message per non-blank line: {"role": "...", "content": "..."}. With json (for a Jinja
   template) the lines are also collected as a JSON array, and a message may carry anything
   else the template reads (tool_calls, content as a list of parts or null, reasoning_content). */
static int read_jsonl(FILE *f, const char *name, conversation *c, char **json) {
    size_t n, line = 0, json_n = 0;
    char *text = read_stream(f, name, &n), *p, *end, err[200];
    if (!text) return -1;
    if (json && append(json, &json_n, "[", 1) != 0) { free(text); return -1; }
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
        if (json && role && role->type == JSON_STRING && strlen(role->str) == role->len && v->type == JSON_OBJECT
            && (!content || content->type != JSON_STRING)) {
            content = NULL;
        } else if (!role || role->type != JSON_STRING || !content || content->type != JSON_STRING ||
            strlen(content->str) != content->len || strlen(role->str) != role->len) {
            fprintf(stderr, "chat: %s line %lu: expected {\"role\": string, \"content\": string without NUL}\n", name, (unsigned long)line);
            json_free(v);
            free(text);
            return -1;
        }
        if ((json && (append(json, &json_n, json_n > 1 ? "," : "", json_n > 1) != 0 || append(json, &json_n, p, (size_t)(end - p)) != 0))
            || conv_add(c, role->str, content ? content->str : "", content ? content->len : 0)) {
            fprintf(stderr, "chat: %s: out of memory\n", name);
            json_free(v);
            free(text);
            return -1;
        }
        json_free(v);
    }
    free(text);
    if (json && append(json, &json_n, "]", 1) != 0) { fprintf(stderr, "chat: %s: out of memory\n", name); return -1; }
    return 0;
}

/* Renders messages into *buf (grown as needed); *why is the template's reason for
   LLM_ERR_TEMPLATE. */
static llm_result render_msgs(const llm_model *m, const llm_chat_message *msgs, size_t n, int add_generation_prompt,
                              const llm_chat_desc *d, char **buf, size_t *cap, size_t *len, const char **why) {
    llm_result r = llm_chat_render(m, msgs, n, add_generation_prompt, d, *buf, *cap, len, why);
    if (r == LLM_ERR_BUFFER_TOO_SMALL) {
        char *p = (char *)realloc(*buf, *len + 1);
        if (!p) return LLM_ERR_OUT_OF_MEMORY;
        *buf = p;
        *cap = *len + 1;
        r = llm_chat_render(m, msgs, n, add_generation_prompt, d, *buf, *cap, len, why);
    }
    return r;
}

/* llm_chat_render knows the names (and family names): ask it about an empty conversation. */
static int template_known(const llm_model *m, const llm_chat_desc *d) {
    size_t len;
    return llm_chat_render(m, NULL, 0, 0, d, NULL, 0, &len, NULL) != LLM_ERR_UNSUPPORTED;
}

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
    char *prompt, *reply, *piece;
    size_t prompt_cap, reply_len, reply_cap, piece_cap;
    int shown;                  /* the reply has shown something (its leading white space is not shown) */
    int tty_in, color, verbose, stop_when_full;
    int mid_line;               /* the last byte written to stdout was not a line end */
    int shared_out;             /* stdout and stderr reach the same terminal, file or pipe */
    int refused;                /* a message was not answered (it did not fit, or the template refused it) */
    size_t dropped;             /* turns dropped to make room for this reply, not said yet */
    char drop_detail[160];      /* the numbers of the first attempt that did not fit */
    char gen_error[256];        /* the library's message of a failed reply */
} chat_state;

/* The generation's log: keeps its message of an error for the turn to say. */
static void keep_gen_error(void *user, const char *message) {
    chat_state *s = (chat_state *)user;
    snprintf(s->gen_error, sizeof s->gen_error, "%s", message);
}

/* stdout as far as this program wrote it: text, never colour codes. */
static void put_out(chat_state *s, const char *text, size_t len) {
    if (!len) return;
    fwrite(text, 1, len, stdout);
    fflush(stdout);
    s->mid_line = text[len - 1] != '\n';
}

/* Before a status line on stderr: where stdout goes to the same place, a reply or prompt
   that did not end its line is ended, so that the status line does not continue it. */
static void end_line(chat_state *s) {
    if (s->mid_line && s->shared_out) put_out(s, "\n", 1);
}

/* A status line on stderr. */
static void note(chat_state *s, const char *fmt, ...) {
    va_list ap;
    end_line(s);
    if (s->color) fputs(COLOR_NOTE, stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (s->color) fputs(COLOR_OFF, stderr);
    fputc('\n', stderr);
}

static int same_place(int a, int b) {
#if defined(_WIN32)
    return isatty(a) && isatty(b);
#else
    struct stat x, y;
    if (isatty(a) && isatty(b)) return 1;
    return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
#endif
}

/* A Jinja template renders the conversation: the model's, or --jinja-file's. */
static int uses_jinja(chat_state *s) {
    size_t len;
    return !s->chat.template_name && (s->chat.jinja || llm_model_meta_string(s->model, LLM_KEY_CHAT_TEMPLATE, &len));
}

/* Renders the conversation into s->prompt; says why not on stderr. */
static llm_result render(chat_state *s, int add_generation_prompt, size_t *len) {
    const char *why = NULL;
    char why_text[1024];
    llm_result r;
    s->chat.error_text = why_text;
    s->chat.error_cap = sizeof why_text;
    r = render_msgs(s->model, s->conv.msgs, s->conv.n, add_generation_prompt, &s->chat, &s->prompt, &s->prompt_cap, len, &why);
    s->chat.error_text = NULL;
    s->chat.error_cap = 0;
    if (r == LLM_ERR_TEMPLATE)
        note(s, "chat: the %s template rejects the conversation: %s",
             s->chat.template_name ? s->chat.template_name : s->chat.jinja ? "--jinja-file" : uses_jinja(s) ? "model's" : llm_chat_template(s->model),
             why ? why : "?");
    else if (r == LLM_ERR_INVALID_ARGUMENT && why)
        note(s, "chat: cannot render the conversation: %s (the messages or --tools)", why);
    else if (r != LLM_OK)
        note(s, "chat: cannot render the conversation: %s", llm_result_string(r));
    return r;
}

static int print_prompt(chat_state *s, int add_generation_prompt) {
    size_t len = 0;
    char *json = NULL;
    int rc = 1;
    if (read_jsonl(stdin, "stdin", &s->conv, uses_jinja(s) ? &json : NULL) == 0) {
        s->chat.messages_json = json;
        if (render(s, add_generation_prompt, &len) == LLM_OK) rc = fwrite(s->prompt, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : 1;
        s->chat.messages_json = NULL;
    }
    free(json);
    return rc;
}

/* One line for the turns dropped to make room for a reply, before the reply shows. */
static void say_dropped(chat_state *s) {
    if (!s->dropped) return;
    if (s->dropped == 1) note(s, "chat: the context is full (%s): dropped the oldest turn", s->drop_detail);
    else note(s, "chat: the context is full (%s): dropped the %lu oldest turns", s->drop_detail, (unsigned long)s->dropped);
    s->dropped = 0;
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
        if (!s->shown) {
            say_dropped(s);
            if (s->color) fputs(COLOR_REPLY, stdout);
        }
        s->shown = 1;
        put_out(s, piece, len);
    }
    return interrupted != 0;
}

/* The tokens messages [i, i + n) take in a prompt, rendered and tokenized alone, or -1. */
static int64_t piece_tokens(chat_state *s, size_t i, size_t n) {
    size_t len, n_ids;
    llm_result r = render_msgs(s->model, s->conv.msgs + i, n, 0, &s->chat, &s->piece, &s->piece_cap, &len, NULL);
    if (r == LLM_OK) r = llm_tokenize(s->model, s->piece, len, LLM_TOKENIZE_PARSE_SPECIAL, NULL, 0, &n_ids);
    return r == LLM_OK || r == LLM_ERR_BUFFER_TOO_SMALL ? (int64_t)n_ids : -1;
}

/* How many messages after the system prompt to drop, whole exchanges (a user message and the
   reply to it) oldest first and never the newest message, so that `over` tokens go; the
   number of exchanges in *turns. Each exchange is priced once, rendered alone (less what an
   empty conversation renders to, plus a token for a merge at each cut), which errs high:
   this drops no more than dropping one exchange at a time until the prompt fits would, in
   time linear in what it drops. The caller renders again and comes back if too few went. */
static size_t messages_to_drop(chat_state *s, int64_t over, size_t *turns) {
    size_t i = s->n_system, n = s->conv.n;
    int64_t freed = 0, base = piece_tokens(s, 0, 0);
    *turns = 0;
    if (base < 0) base = 0;
    while (i + 1 < n && freed < over) {
        size_t count = i + 2 < n && !strcmp(s->conv.msgs[i + 1].role, "assistant") ? 2 : 1;
        int64_t t = piece_tokens(s, i, count);
        freed += t < 0 ? over : t - base + 2; /* a piece that will not render alone: stop at it */
        i += count;
        ++*turns;
    }
    return i - s->n_system;
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

/* The newest message is not answered: it goes, and a script learns of it from the exit status. */
static int refuse(chat_state *s) {
    conv_remove(&s->conv, s->conv.n - 1, 1);
    s->refused = 1;
    return 0;
}

/* One user message and its reply. Returns 0 to go on, 1 on an error, 3 when the context is
   full and the chat should stop. */
static int chat_turn(chat_state *s, const char *line) {
    llm_generate_stats st;
    llm_result r;
    size_t len, drop, turns;
    int32_t n_ctx = llm_ctx_size(s->ctx);
    char detail[160];
    if (conv_add(&s->conv, "user", line, strlen(line))) { note(s, "chat: out of memory"); return 1; }
    s->dropped = 0;
    for (;;) {
        if (render(s, 1, &len) != LLM_OK) return refuse(s);
        s->reply_len = 0;
        s->shown = 0;
        interrupted = 0;
        r = llm_generate(s->ctx, s->prompt, len, &s->gen, &st);
        if (r != LLM_ERR_CONTEXT_FULL) break;
        snprintf(detail, sizeof detail, "the conversation needs %d tokens and the reply %d; it holds %d", st.n_prompt, s->gen.n_reserve, n_ctx);
        if (s->stop_when_full) { note(s, "chat: the context is full (%s); stopping", detail); return 3; }
        if (!(drop = messages_to_drop(s, (int64_t)st.n_prompt + s->gen.n_reserve - n_ctx, &turns))) {
            say_dropped(s);
            note(s, "chat: the message does not fit in the context (%s)", detail);
            return refuse(s);
        }
        conv_remove(&s->conv, s->n_system, drop);
        if (!s->dropped) memcpy(s->drop_detail, detail, sizeof detail);
        s->dropped += turns;
    }
    say_dropped(s); /* a reply that showed nothing */
    if (s->color && s->shown) fputs(COLOR_OFF, stdout);
    put_out(s, "\n", 1);
    if (r != LLM_OK) { note(s, "chat: %s: %s", llm_result_string(r), s->gen_error); return 1; }
    if (conv_add(&s->conv, "assistant", s->reply ? s->reply : "", s->reply_len)) { note(s, "chat: out of memory"); return 1; }
    if (s->verbose)
        note(s, "chat: prompt %d tokens (%d reused, %d evaluated, %.1f tok/s), reply %d tokens (%.1f tok/s), %s", st.n_prompt, st.n_reused,
             st.n_evaluated, st.prompt_tokens_per_s, st.n_generated, st.gen_tokens_per_s, stop_reason(st.stop));
    if (st.stop == LLM_STOP_CALLBACK && s->tty_in) note(s, "(stopped)");
    if (st.stop == LLM_STOP_CONTEXT_FULL) {
        if (s->stop_when_full) { note(s, "chat: the context (%d tokens) is full; stopping", n_ctx); return 3; }
        note(s, "chat: the context (%d tokens) is full; the next turn drops the oldest turns", n_ctx);
    }
    return 0;
}

enum { LINE_END = 0, LINE_READ = 1, LINE_INTERRUPTED = -1, LINE_ERROR = -2 };

/* A line of any length without its line end, in *buf. LINE_INTERRUPTED is a Ctrl-C at the
   prompt; LINE_ERROR a read error (said on stderr), which is not the end of the input. */
static int read_line(chat_state *s, char **buf, size_t *cap) {
    size_t n = 0;
    for (;;) {
        size_t room;
        if (*cap - n < 256) {
            char *p = (char *)realloc(*buf, *cap * 2 + 256);
            if (!p) { note(s, "chat: out of memory"); return LINE_ERROR; }
            *buf = p;
            *cap = *cap * 2 + 256;
        }
        room = *cap - n < INT_MAX ? *cap - n : INT_MAX;
        errno = 0;
        if (!fgets(*buf + n, (int)room, stdin)) {
            if (ferror(stdin) && errno == EINTR) { clearerr(stdin); return LINE_INTERRUPTED; }
            if (ferror(stdin)) { note(s, "chat: cannot read stdin: %s", strerror(errno ? errno : EIO)); return LINE_ERROR; }
            if (n == 0) return LINE_END;
            break;
        }
        n += strlen(*buf + n);
        if (n && (*buf)[n - 1] == '\n') break;
    }
    while (n && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r')) n--;
    (*buf)[n] = 0;
    return LINE_READ;
}

static void help(chat_state *s) {
    note(s, "  /reset  start a new conversation (the system prompt stays)\n"
            "  /save FILE  save the context (tokens, KV cache) to FILE, the conversation to FILE.jsonl\n"
            "  /load FILE  load them back: the conversation goes on without evaluating it again\n"
            "  /quit   leave (or Ctrl-D)\n"
            "  /help   this text\n"
            "  Ctrl-C stops a reply; twice quits.");
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

/* path followed by suffix, in a new buffer: no path is too long to be written out whole. */
static char *path_with(const char *path, const char *suffix) {
    size_t n = strlen(path), k = strlen(suffix);
    char *p = (char *)malloc(n + k + 1);
    if (p) { memcpy(p, path, n); memcpy(p + n, suffix, k + 1); }
    return p;
}

/* rename() that replaces an existing file on Windows too (where rename refuses to). */
static int replace_file(const char *from, const char *to) {
#if defined(_WIN32)
    remove(to);
#endif
    return rename(from, to);
}

/* Writes the conversation to FILE.jsonl.tmp. Returns 0, or -1 after saying why. */
static int write_conversation(chat_state *s, const char *tmp) {
    FILE *f = fopen(tmp, "wb");
    size_t i;
    int ok;
    if (!f) { note(s, "chat: cannot create %s: %s", tmp, strerror(errno)); return -1; }
    for (i = 0; i < s->conv.n; i++) {
        fputs("{\"role\": ", f);
        put_json_string(f, s->conv.msgs[i].role);
        fputs(", \"content\": ", f);
        put_json_string(f, s->conv.msgs[i].content);
        fputs("}\n", f);
    }
    ok = !ferror(f);
    if (fclose(f) != 0 || !ok) { note(s, "chat: cannot write %s: %s", tmp, strerror(errno)); remove(tmp); return -1; }
    return 0;
}

/* /save FILE: the context's state to FILE, the conversation to FILE.jsonl. The conversation
   is written first, beside its file, so that a path too long for it fails before anything
   is replaced. */
static void save_session(chat_state *s, const char *path) {
    char *conv_path = path_with(path, ".jsonl"), *tmp = path_with(path, ".jsonl.tmp");
    if (!conv_path || !tmp) note(s, "chat: out of memory");
    else if (write_conversation(s, tmp) != 0) {} /* said why */
    else if (llm_ctx_save(s->ctx, path) != LLM_OK) { note(s, "chat: cannot save: %s", llm_ctx_error(s->ctx)); remove(tmp); }
    else if (replace_file(tmp, conv_path) != 0) { note(s, "chat: cannot rename %s to %s: %s", tmp, conv_path, strerror(errno)); remove(tmp); }
    else note(s, "chat: saved %d tokens and %lu messages to %s", llm_ctx_pos(s->ctx), (unsigned long)s->conv.n, path);
    free(conv_path);
    free(tmp);
}

/* /load FILE: the state, and the conversation of FILE.jsonl when there is one. Both are read
   before either replaces what the chat holds (llm_ctx_load keeps the context's contents
   when it fails), so a failed load changes nothing. */
static void load_session(chat_state *s, const char *path) {
    char *conv_path = path_with(path, ".jsonl");
    conversation c;
    FILE *f = NULL;
    memset(&c, 0, sizeof c);
    end_line(s); /* read_jsonl says what is wrong with the file on stderr */
    if (!conv_path) note(s, "chat: out of memory");
    else if (!(f = fopen(conv_path, "rb")) && errno != ENOENT) note(s, "chat: cannot open %s: %s", conv_path, strerror(errno));
    else if (f && read_jsonl(f, conv_path, &c, NULL) != 0) {} /* said why */
    else if (llm_ctx_load(s->ctx, path) != LLM_OK) note(s, "chat: cannot load: %s", llm_ctx_error(s->ctx));
    else {
        if (f) {
            conv_free(&s->conv);
            s->conv = c;
            memset(&c, 0, sizeof c);
            s->n_system = s->conv.n && !strcmp(s->conv.msgs[0].role, "system");
        }
        note(s, "chat: loaded %d tokens and %lu messages from %s", llm_ctx_pos(s->ctx), (unsigned long)s->conv.n, path);
    }
    if (f) fclose(f);
    conv_free(&c);
    free(conv_path);
}

/* The argument of the command `name` in line ("" when it has none), or NULL when line is
   not that command. */
static const char *command(const char *line, const char *name) {
    size_t n = strlen(name);
    if (strncmp(line, name, n) || (line[n] && line[n] != ' ')) return NULL;
    return line[n] ? line + n + 1 : line + n;
}

/* Returns 0, 1 on an error (or, without a terminal, when a message went unanswered), 3 when
   the context is full under --context-full stop. */
static int chat_loop(chat_state *s) {
    char *line = NULL;
    const char *arg;
    size_t cap = 0;
    int rc = 0, got;
    if (s->tty_in)
        note(s, "chat: template %s, context %d tokens. /help for commands.",
             s->chat.template_name ? s->chat.template_name : s->chat.jinja ? "from --jinja-file" : uses_jinja(s) ? "the model's (Jinja)" : llm_chat_template(s->model),
             llm_ctx_size(s->ctx));
    for (;;) {
        if (s->tty_in) {
            fputs(s->color ? COLOR_USER "> " COLOR_OFF : "> ", stdout);
            fflush(stdout);
            s->mid_line = 1;
        }
        interrupted = 0;
        got = read_line(s, &line, &cap);
        if (got == LINE_INTERRUPTED) { put_out(s, "\n", 1); if (s->tty_in) note(s, "(/quit or Ctrl-D to leave)"); continue; }
        if (got == LINE_ERROR) { rc = 1; break; }
        if (got == LINE_END) { if (s->tty_in) put_out(s, "\n", 1); break; }
        if (s->tty_in && isatty(fileno(stdout))) s->mid_line = 0; /* the terminal echoed the line end */
        if (line[0] == '/') {
            if (!strcmp(line, "/quit") || !strcmp(line, "/exit")) break;
            if (!strcmp(line, "/help")) { help(s); continue; }
            if (!strcmp(line, "/reset")) {
                conv_remove(&s->conv, s->n_system, s->conv.n - s->n_system);
                if (s->tty_in) note(s, "(new conversation)");
                continue;
            }
            if ((arg = command(line, "/save")) != NULL) { if (*arg) save_session(s, arg); else note(s, "chat: /save needs a FILE"); continue; }
            if ((arg = command(line, "/load")) != NULL) { if (*arg) load_session(s, arg); else note(s, "chat: /load needs a FILE"); continue; }
            note(s, "chat: unknown command %s (/help lists them)", line);
            continue;
        }
        if (!line[strspn(line, " \t")]) continue;
        if ((rc = chat_turn(s, line)) != 0) break;
    }
    free(line);
    return rc == 0 && s->refused && !s->tty_in ? 1 : rc;
}

static int open_chat(chat_state *s, const char *system, llm_ctx_desc *cd, int32_t max_reply) {
    if (!(s->ctx = open_context("chat", s->model, cd))) return 1; /* it warns of an n_ctx beyond the trained positions */
    if (!llm_tokenizer_info_get(s->model)) {
        fprintf(stderr, "chat: the model file has no tokenizer (convert it from a directory with tokenizer.json)\n");
        return 1;
    }
    if (system) {
        if (conv_add(&s->conv, "system", system, strlen(system))) { fprintf(stderr, "chat: out of memory\n"); return 1; }
        s->n_system = 1;
    }
    if (max_reply == 0) max_reply = llm_ctx_size(s->ctx) / 4;
    s->gen.sampler = &s->sampler;
    s->gen.max_tokens = max_reply;
    s->gen.n_reserve = max_reply < llm_ctx_size(s->ctx) / 2 ? max_reply : llm_ctx_size(s->ctx) / 2;
    s->gen.template_name = s->chat.template_name;
    s->gen.on_token = on_token;
    s->gen.user = s;
    s->gen.log = keep_gen_error;
    s->gen.log_user = s;
    return 0;
}

/* -f FILE: the system prompt, without the one line end a text file ends with. */
static char *read_system_prompt(const char *path) {
    size_t len;
    char *text = read_whole_file("chat", path, &len);
    if (!text) return NULL;
    if (strlen(text) != len) { fprintf(stderr, "chat: %s holds a NUL byte; a system prompt is text\n", path); free(text); return NULL; }
    if (len && text[len - 1] == '\n') text[--len] = 0;
    if (len && text[len - 1] == '\r') text[--len] = 0;
    return text;
}

/* ---- --render-jsonl ------------------------------------------------------------------------
   One request a line, {"template": SOURCE, name: value, ...}: every key but "template" is a
   template variable, passed on as its JSON text; a null bos_token or eos_token is left out
   (the tokenizer has none, so transformers does not define it). One answer a line. */

/* The end of the JSON value that starts at p (after white space), or NULL. */
static const char *json_skip(const char *p, const char *end) {
    int depth = 0;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    if (p >= end) return NULL;
    if (*p != '"' && *p != '[' && *p != '{') {
        while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') p++;
        return p;
    }
    for (; p < end; p++) {
        if (*p == '"') {
            for (p++; p < end && *p != '"'; p++) if (*p == '\\') p++;
            if (p >= end) return NULL;
        } else if (*p == '[' || *p == '{') depth++;
        else if (*p == ']' || *p == '}') depth--;
        if (depth == 0) return p + 1;
    }
    return NULL;
}

static void put_answer(const char *key, const char *text, size_t n) {
    size_t i;
    printf("{\"%s\": \"", key);
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '"' || ch == '\\') printf("\\%c", ch);
        else if (ch == '\n') fputs("\\n", stdout);
        else if (ch < 0x20) printf("\\u%04x", ch);
        else putchar(ch);
    }
    fputs("\"}\n", stdout);
}

/* Splits one request into the template's source (decoded) and the variables' JSON object. */
static int split_request(const char *line, size_t n, char **tmpl, size_t *tmpl_len, char **vars, size_t *vars_len, char *err, size_t err_size) {
    const char *p = line, *end = line + n;
    static const char documents[] = "{\"documents\":null"; /* transformers passes documents=None */
    size_t cap = n + sizeof documents + 3, k = sizeof documents - 1;
    char *out = (char *)malloc(cap);
    *tmpl = NULL;
    if (!out) { snprintf(err, err_size, "out of memory"); return -1; }
    memcpy(out, documents, k);
    while (p < end && *p != '{') p++;
    if (p < end) p++;
    for (;;) {
        const char *key, *key_end, *val, *val_end;
        while (p < end && (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r' || *p == '\n')) p++;
        if (p >= end || *p == '}') break;
        key = p;
        if (*p != '"' || !(key_end = json_skip(p, end))) { snprintf(err, err_size, "bad request: expected a key"); goto fail; }
        p = key_end;
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        if (p >= end || *p != ':') { snprintf(err, err_size, "bad request: expected ':'"); goto fail; }
        val = ++p;
        while (val < end && (*val == ' ' || *val == '\t')) val++;
        if (!(val_end = json_skip(val, end))) { snprintf(err, err_size, "bad request: bad value"); goto fail; }
        p = val_end;
        if ((size_t)(key_end - key) == 10 && !memcmp(key, "\"template\"", 10)) {
            json_value *v = json_parse(val, (size_t)(val_end - val), err, err_size);
            if (!v) goto fail;
            if (v->type != JSON_STRING) { json_free(v); snprintf(err, err_size, "bad request: template is not a string"); goto fail; }
            free(*tmpl);
            *tmpl = dup_string(v->str, v->len);
            *tmpl_len = v->len;
            json_free(v);
            continue;
        }
        if (val_end - val == 4 && !memcmp(val, "null", 4)
            && (((size_t)(key_end - key) == 11 && (!memcmp(key, "\"bos_token\"", 11) || !memcmp(key, "\"eos_token\"", 11)))))
            continue;
        out[k++] = ',';
        memcpy(out + k, key, (size_t)(key_end - key)); k += (size_t)(key_end - key);
        out[k++] = ':';
        memcpy(out + k, val, (size_t)(val_end - val)); k += (size_t)(val_end - val);
    }
    out[k++] = '}';
    if (!*tmpl) { snprintf(err, err_size, "bad request: no template"); goto fail; }
    *vars = out; *vars_len = k;
    return 0;
fail:
    free(out); free(*tmpl); *tmpl = NULL;
    return -1;
}

/* One line of f without its newline, in *buf (grown as needed); -1 at the end. */
static long get_line(FILE *f, char **buf, size_t *cap) {
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (n + 1 >= *cap) {
            char *p = (char *)realloc(*buf, *cap * 2 + 4096);
            if (!p) return -1;
            *buf = p; *cap = *cap * 2 + 4096;
        }
        (*buf)[n++] = (char)ch;
    }
    if (ch == EOF && n == 0) return -1;
    return (long)n;
}

static int render_jsonl(void) {
    size_t cap = 1 << 16, got, line_cap = 0;
    char *out = (char *)malloc(cap), *line = NULL, err[512];
    long n;
    if (!out) return 1;
    while ((n = get_line(stdin, &line, &line_cap)) >= 0) {
        char *tmpl, *vars;
        size_t tmpl_len, vars_len;
        llm_result rc;
        if (n == 0) continue;
        if (split_request(line, (size_t)n, &tmpl, &tmpl_len, &vars, &vars_len, err, sizeof err) != 0) {
            put_answer("error", err, strlen(err));
            continue;
        }
        rc = llm_jinja_render(tmpl, tmpl_len, vars, vars_len, NULL, out, cap, &got, err, sizeof err);
        if (rc == LLM_ERR_BUFFER_TOO_SMALL) {
            char *bigger = (char *)realloc(out, got + 1);
            if (bigger) { out = bigger; cap = got + 1; rc = llm_jinja_render(tmpl, tmpl_len, vars, vars_len, NULL, out, cap, &got, err, sizeof err); }
        }
        if (rc == LLM_OK) put_answer("text", out, got);
        else {
            const char *msg = err[0] ? err : llm_result_string(rc);
            put_answer("error", msg, strlen(msg));
        }
        fflush(stdout);
        free(tmpl); free(vars);
    }
    free(line); free(out);
    return 0;
}

/* --jinja-file, --tools: a whole text file (no NUL byte). */
static char *read_text_file(const char *path) {
    size_t len;
    char *text = read_whole_file("chat", path, &len);
    if (text && strlen(text) != len) { fprintf(stderr, "chat: %s holds a NUL byte; expected text\n", path); free(text); return NULL; }
    return text;
}

/* ---- the command line -------------------------------------------------------------------- */
/* Every spelling chat takes, those without a value first (CHAT_SWITCHES of them). */
static const char *const chat_flags[] = {
    "-h", "--help", "-v", "--print-prompt", "--no-generation-prompt", "--no-thinking", "--render-jsonl", "--bf16-dot",
    "--no-mmap", "-m", "--model", "-sys", "--system-prompt", "-f", "--file", "--template", "--jinja-file", "--tools", "-n", "--n-predict", "-c", "--ctx-size",
    "-b", "--batch-size", "-t", "--threads", "--context-full", "-s", SAMPLING_FLAGS, NULL,
};
#define CHAT_SWITCHES 9

typedef struct chat_args {
    const char *model, *system, *system_file, *jinja_file, *tools_file;
    int help, prompt_only, generation_prompt, render_jsonl, no_mmap;
    int32_t max_reply;
} chat_args;

/* Returns 0, or 2 after saying what is wrong. */
static int parse_args(int argc, char **argv, chat_args *o, chat_state *s, llm_ctx_desc *cd) {
    int i, k, ok;
    for (i = 1; i < argc; i++) {
        const char *raw = argv[i], *a = flag_name(raw), *v;
        for (k = 0; chat_flags[k] && strcmp(chat_flags[k], raw); k++) {}
        if (!chat_flags[k]) { flag_unknown("chat", raw, chat_flags); return 2; }
        if (k < CHAT_SWITCHES) {
            if (!strcmp(a, "-h")) { o->help = 1; return 0; }
            if (!strcmp(a, "-v")) s->verbose = 1;
            else if (!strcmp(a, "--print-prompt")) o->prompt_only = 1;
            else if (!strcmp(a, "--no-generation-prompt")) o->generation_prompt = 0;
            else if (!strcmp(a, "--render-jsonl")) o->render_jsonl = 1;
            else if (!strcmp(a, "--bf16-dot")) cd->bf16_dot = 1;
            else if (!strcmp(a, "--no-mmap")) o->no_mmap = 1;
            else s->chat.no_thinking = 1;
            continue;
        }
        if (!(v = flag_value(argc, argv, &i))) { fprintf(stderr, "chat: %s needs a value\n", raw); return 2; }
        ok = 1;
        if ((k = sampling_parse("chat", a, v, &s->sampler)) != 0) {
            if (k < 0 && !strcmp(raw, "-s")) fprintf(stderr, "chat: (-s is the seed; the system prompt is -sys TEXT)\n");
            ok = k > 0;
        } else if (!strcmp(a, "-m")) o->model = v;
        else if (!strcmp(a, "-sys")) o->system = v;
        else if (!strcmp(a, "-f")) o->system_file = v;
        else if (!strcmp(a, "--template")) s->chat.template_name = v;
        else if (!strcmp(a, "--jinja-file")) o->jinja_file = v;
        else if (!strcmp(a, "--tools")) o->tools_file = v;
        else if (!strcmp(a, "-n")) ok = flag_int("chat", raw, v, 0, INT32_MAX, &o->max_reply);
        else if (!strcmp(a, "-c")) ok = flag_int("chat", raw, v, 0, INT32_MAX, &cd->n_ctx);
        else if (!strcmp(a, "-b")) ok = flag_int("chat", raw, v, 0, INT32_MAX, &cd->n_batch);
        else if (!strcmp(a, "-t")) ok = flag_int("chat", raw, v, 0, LLM_MAX_THREADS, &cd->n_threads);
        else if (!strcmp(v, "drop") || !strcmp(v, "stop")) s->stop_when_full = !strcmp(v, "stop");
        else { fprintf(stderr, "chat: --context-full: '%s' is neither drop nor stop\n", v); ok = 0; }
        if (!ok) return 2;
    }
    if (o->system && o->system_file) { fprintf(stderr, "chat: -sys and -f both give the system prompt: give one\n"); return 2; }
    return 0;
}

static uint64_t mix64(uint64_t x) { /* splitmix64's finalizer */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A seed that differs from run to run, even for two runs started in the same second: the
   system's random bytes where it has them, mixed with the time, the processor time and the
   process id. */
static uint64_t random_seed(void) {
    uint64_t seed = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&seed, sizeof seed, 1, f) != 1) seed = 0;
        fclose(f);
    }
    return mix64(seed ^ mix64((uint64_t)time(NULL) ^ mix64((uint64_t)clock() ^ mix64((uint64_t)getpid()))));
}

int main(int argc, char **argv) {
    chat_args o;
    chat_state s;
    llm_ctx_desc cd;
    llm_model_desc md;
    char *system_file = NULL, *jinja_text = NULL, *tools_text = NULL;
    llm_jinja *parsed = NULL;
    int rc;
    memset(&o, 0, sizeof o);
    memset(&s, 0, sizeof s);
    memset(&cd, 0, sizeof cd);
    memset(&md, 0, sizeof md);
    o.generation_prompt = 1;
    s.sampler.temperature = 0.8f; /* llama.cpp's defaults */
    s.sampler.top_k = 40;
    s.sampler.top_p = 0.95f;
    s.sampler.min_p = 0.05f;
    s.sampler.seed = random_seed();
    if ((rc = parse_args(argc, argv, &o, &s, &cd)) != 0) return rc;
    if (o.help) { usage(stdout); return 0; }
    if (o.render_jsonl) return render_jsonl();
    if (!o.model) { usage(stderr); return 2; }
    sampling_done(&s.sampler);
    if (!o.prompt_only) warn_build("chat");
    if (o.system_file && !(system_file = read_system_prompt(o.system_file))) return 1;
    if (o.jinja_file && !(jinja_text = read_text_file(o.jinja_file))) { free(system_file); return 1; }
    if (o.tools_file && !(tools_text = read_text_file(o.tools_file))) { free(system_file); free(jinja_text); return 1; }
    s.chat.jinja = jinja_text;
    s.chat.tools_json = tools_text;
    md.vocab_only = o.prompt_only; /* the prompt needs no weights: a vocab-only file will do */
    md.no_mmap = o.no_mmap;
    if (!(s.model = open_model("chat", o.model, &md))) rc = 1;
    else if (!template_known(s.model, &s.chat)) {
        size_t k;
        fprintf(stderr, "chat: unknown template '%s'; known:", s.chat.template_name);
        for (k = 0; llm_chat_template_name(k); k++) fprintf(stderr, " %s", llm_chat_template_name(k));
        fprintf(stderr, "\n");
        rc = 2;
    }
    if (rc == 0 && uses_jinja(&s)) { /* parsed once, rendered every turn */
        size_t len = 0;
        const char *text = s.chat.jinja ? s.chat.jinja : llm_model_meta_string(s.model, LLM_KEY_CHAT_TEMPLATE, &len);
        char why[512];
        if (s.chat.jinja) len = strlen(text);
        if (llm_jinja_open(&parsed, text, len, NULL, why, sizeof why) == LLM_OK) s.chat.parsed = parsed;
    }
    if (rc == 0 && o.prompt_only) {
        rc = print_prompt(&s, o.generation_prompt);
    } else if (rc == 0 && (rc = open_chat(&s, system_file ? system_file : o.system, &cd, o.max_reply)) == 0) {
        s.tty_in = isatty(fileno(stdin));
        s.color = s.tty_in && isatty(fileno(stdout)) && isatty(fileno(stderr));
        s.shared_out = same_place(fileno(stdout), fileno(stderr));
        catch_sigint();
        rc = chat_loop(&s);
    }
    conv_free(&s.conv);
    free(s.prompt);
    free(s.reply);
    free(s.piece);
    free(system_file);
    free(jinja_text);
    free(tools_text);
    llm_jinja_close(parsed);
    llm_ctx_close(s.ctx);
    llm_model_close(s.model);
    return rc;
}
