/* flags.h - what every program does with its command line: llama.cpp's long spellings of the
   shared flags, strict numbers, helpful errors for unknown flags, one-line file errors, and a
   warning when the build is slow. Included by the programs after llm.h; not part of the
   library. Bad usage exits 2, a failure to do the work exits 1. */
#ifndef LLM_PROGRAMS_FLAGS_H
#define LLM_PROGRAMS_FLAGS_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each program uses some of these; unused ones must not warn. */
#if defined(__GNUC__) || defined(__clang__)
#define FLAGS_FN static __attribute__((unused))
#else
#define FLAGS_FN static
#endif

/* A flag as the programs spell it: llama.cpp's long forms (--model, --prompt, ...) as their
   short ones, and -s as --seed. */
FLAGS_FN const char *flag_name(const char *a) {
    static const char *const names[][2] = {
        { "--model", "-m" }, { "--prompt", "-p" }, { "--n-predict", "-n" }, { "--threads", "-t" }, { "--ctx-size", "-c" },
        { "--file", "-f" }, { "--batch-size", "-b" }, { "--system-prompt", "-sys" }, { "-s", "--seed" }, { "--help", "-h" },
    };
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(a, names[i][0])) return names[i][1];
    return a;
}

/* The value after the flag argv[*i] (and *i moves onto it), or NULL when the flag is last. */
FLAGS_FN const char *flag_value(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

/* Whether a is one of a NULL-terminated list of flags. */
FLAGS_FN int flag_is(const char *a, const char *const *list) {
    for (; *list; list++)
        if (!strcmp(a, *list)) return 1;
    return 0;
}

/* strtol and friends skip leading white space and take a sign where none is wanted; a flag's
   number is the whole argument and nothing else. */
static int flags__starts_number(const char *text) {
    return *text && !(*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r' || *text == '\f' || *text == '\v');
}

/* text as a whole number in lo..hi. Returns 1, or 0 after saying why on stderr. */
FLAGS_FN int flag_int(const char *prog, const char *flag, const char *text, long lo, long hi, int32_t *out) {
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (!flags__starts_number(text) || end == text || *end) {
        fprintf(stderr, "%s: %s: '%s' is not a whole number\n", prog, flag, text);
        return 0;
    }
    if (errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "%s: %s: %s is out of range (%ld..%ld)\n", prog, flag, text, lo, hi);
        return 0;
    }
    *out = (int32_t)v;
    return 1;
}

/* text as an unsigned 64-bit number (a seed). Returns 1, or 0 after saying why. */
FLAGS_FN int flag_u64(const char *prog, const char *flag, const char *text, uint64_t *out) {
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (!flags__starts_number(text) || *text == '-' || *text == '+' || end == text || *end) {
        fprintf(stderr, "%s: %s: '%s' is not a whole number of 0 or more\n", prog, flag, text);
        return 0;
    }
    if (errno == ERANGE) {
        fprintf(stderr, "%s: %s: %s is out of range (0..18446744073709551615)\n", prog, flag, text);
        return 0;
    }
    *out = (uint64_t)v;
    return 1;
}

/* text as a finite number in lo..hi. Returns 1, or 0 after saying why. */
FLAGS_FN int flag_float(const char *prog, const char *flag, const char *text, float lo, float hi, float *out) {
    char *end;
    double v;
    errno = 0;
    v = strtod(text, &end);
    if (!flags__starts_number(text) || end == text || *end || v != v) {
        fprintf(stderr, "%s: %s: '%s' is not a number\n", prog, flag, text);
        return 0;
    }
    if (errno == ERANGE || !(v >= lo && v <= hi)) {
        fprintf(stderr, "%s: %s: %s is out of range (%g..%g)\n", prog, flag, text, (double)lo, (double)hi);
        return 0;
    }
    *out = (float)v;
    return 1;
}

/* Levenshtein distance, capped: flags are short, and anything past the cap is "far". */
static int flags__distance(const char *a, const char *b) {
    enum { CAP = 40 };
    int row[CAP + 1], i, j, na = (int)strlen(a), nb = (int)strlen(b);
    if (na > CAP || nb > CAP) return CAP;
    for (j = 0; j <= nb; j++) row[j] = j;
    for (i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = i;
        for (j = 1; j <= nb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[nb];
}

/* The known flag arg is most likely a misspelling of (edit distance <= 2, and less than half
   the flag: "-x" is no misspelling of "-h"), or the start of one; NULL when none is. */
static const char *flags__closest(const char *arg, const char *const *known) {
    const char *best = NULL;
    int best_d = 3;
    size_t n = strlen(arg);
    for (; *known; known++) {
        int d = flags__distance(arg, *known);
        if (d >= best_d && n >= 3 && !strncmp(arg, *known, n)) d = 2;
        if (d < best_d && 2 * d < (int)strlen(*known)) { best = *known; best_d = d; }
    }
    return best;
}

/* Says that arg is not an option of prog: an unknown flag (with the known one it is closest
   to, if any), or a bare word where an option was expected. The caller exits 2. */
/* A kernel set by its llm_kernels_name ("auto", "avx2", ...); 0 after saying which exist. */
FLAGS_FN int flag_kernels(const char *prog, const char *flag, const char *text, llm_kernels *out) {
    int k;
    for (k = 0; k < LLM_KERNELS_COUNT; k++)
        if (!strcmp(text, llm_kernels_name((llm_kernels)k))) { *out = (llm_kernels)k; return 1; }
    fprintf(stderr, "%s: %s: '%s' is not a kernel set; one of:", prog, flag, text);
    for (k = 0; k < LLM_KERNELS_COUNT; k++) fprintf(stderr, " %s", llm_kernels_name((llm_kernels)k));
    fprintf(stderr, "\n");
    return 0;
}

FLAGS_FN void flag_unknown(const char *prog, const char *arg, const char *const *known) {
    const char *closest;
    if (arg[0] != '-' || !arg[1]) {
        fprintf(stderr, "%s: unexpected argument '%s' (options start with '-'; the model is -m FILE)\n", prog, arg);
        return;
    }
    fprintf(stderr, "%s: unknown option '%s'", prog, arg);
    if ((closest = flags__closest(arg, known)) != NULL) fprintf(stderr, " (did you mean '%s'?)", closest);
    fprintf(stderr, " (see %s --help)\n", prog);
}

/* One line for a file that would not open; call right after the failing fopen (errno). */
FLAGS_FN void print_open_error(const char *prog, const char *path) {
    fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
}

/* What the library says through a desc's log callback (the detail of a failed open, or a
   warning), and errno at that moment: the system's reason for an i/o error. */
typedef struct flags__log {
    char msg[512];
    int err;
} flags__log;

static void flags__keep(void *user, const char *msg) {
    flags__log *l = (flags__log *)user;
    size_t n = strlen(l->msg);
    l->err = errno;
    snprintf(l->msg + n, sizeof l->msg - n, "%s%s", n ? "; " : "", msg);
}

/* llm_model_open, or NULL after one line: "PROG: cannot open PATH: why", why being the
   library's detail (without the path it starts with) and, for an i/o error, the system's. */
FLAGS_FN llm_model *open_model(const char *prog, const char *path, llm_model_desc *d) {
    flags__log l;
    llm_model *m = NULL;
    llm_result r;
    const char *why = l.msg;
    size_t n = strlen(path);
    memset(&l, 0, sizeof l);
    d->log = flags__keep;
    d->log_user = &l;
    errno = 0;
    if ((r = llm_model_open(&m, path, d)) == LLM_OK) return m;
    if (!strncmp(why, path, n) && !strncmp(why + n, ": ", 2)) why += n + 2;
    if (!*why) why = llm_result_string(r);
    if (r == LLM_ERR_IO && l.err && !strcmp(why, "cannot open")) fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(l.err));
    else if (r == LLM_ERR_IO && l.err && !strcmp(why, "read failed")) fprintf(stderr, "%s: cannot read %s: %s\n", prog, path, strerror(l.err));
    else if (r == LLM_ERR_IO && l.err) fprintf(stderr, "%s: cannot open %s: %s: %s\n", prog, path, why, strerror(l.err));
    else fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, why);
    return NULL;
}

/* llm_ctx_open, or NULL after one line saying why; the library's warnings (an n_ctx beyond
   the positions the model was trained for) go to stderr as "PROG: warning: ...". */
FLAGS_FN llm_ctx *open_context(const char *prog, const llm_model *m, llm_ctx_desc *d) {
    flags__log l;
    llm_ctx *c = NULL;
    llm_result r;
    memset(&l, 0, sizeof l);
    d->log = flags__keep;
    d->log_user = &l;
    if ((r = llm_ctx_open(&c, m, d)) != LLM_OK)
        fprintf(stderr, "%s: cannot create a context: %s\n", prog, *l.msg ? l.msg : llm_result_string(r));
    else if (*l.msg)
        fprintf(stderr, "%s: warning: %s\n", prog, l.msg);
    d->log = NULL;
    d->log_user = NULL;
    return c;
}

/* The whole file, NUL-terminated, its size in *len; NULL after one line saying why. A read
   error (a directory opens but does not read) is an error, not an empty file. */
FLAGS_FN char *read_whole_file(const char *prog, const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL, *grown;
    size_t n = 0, cap = 0, got;
    int err;
    if (!f) { print_open_error(prog, path); return NULL; }
    do {
        if (cap - n < 4096) {
            cap = cap * 2 + 4096;
            if (!(grown = (char *)realloc(buf, cap + 1))) {
                fprintf(stderr, "%s: %s: out of memory\n", prog, path);
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        errno = 0;
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    err = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (err) {
        fprintf(stderr, "%s: cannot read %s: %s\n", prog, path, strerror(err));
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

/* A build without optimisation, or one whose best kernels are the scalar ones on an x86-64 or
   aarch64 CPU (LLM_NO_SIMD, a compiler without run-time selection and no target flags, or a
   CPU without AVX2), runs one to two orders of magnitude slower; say so once, before the
   work, so nobody benchmarks it by accident. */
FLAGS_FN void warn_build(const char *prog) {
    const char *info = llm_system_info();
    int unoptimized = strstr(info, "unoptimized") != NULL, scalar = 0;
#if !defined(LLM_NO_SIMD) && (defined(__x86_64__) || defined(_M_X64) || defined(__aarch64__) || defined(_M_ARM64))
    scalar = strstr(info, "kernels scalar") != NULL;
#endif
    if (!unoptimized && !scalar) return;
    fprintf(stderr, "%s: warning: built %s (%s): expect it to run 10-100x slower; build with -O2\n", prog,
            unoptimized && scalar ? "without optimisation and without SIMD kernels"
            : unoptimized         ? "without optimisation"
                                  : "without SIMD kernels",
            info);
}

#endif
