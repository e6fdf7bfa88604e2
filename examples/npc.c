/* npc: a non-player character speaks a line inside a game loop that runs at a fixed rate.

   build/npc -m model.llm [-p TEXT] [-n N] [--fps F] [--budget MS] [-t N] [-v]

   The game renders a frame every 1/F seconds. Each frame does its own work, then, when the
   time left in the NPC's share of the frame (--budget, default half a frame) holds a typical
   generation step (a running average), calls llm_generation_step once: a step evaluates at
   most one chunk of the prompt (8 tokens) or one token and samples at most one, so the frame
   is never held up for the whole line. (When no step fits a budget, one runs every frame:
   it is the smallest unit of work.) The line's text goes to stdout as it grows; -v reports
   every frame on stderr, and a summary (frames, steps, the slowest step against the budget)
   ends on stderr. */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#define LLM_IMPLEMENTATION
#include "../llm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_WIN32)
#include <windows.h>
#endif

static void usage(FILE *f) {
    fprintf(f,
            "usage: npc -m model.llm [options]\n"
            "  -m, --model FILE       model file (.llm)\n"
            "  -p, --prompt TEXT      what the NPC's line continues (default: a line of dialogue)\n"
            "  -n, --n-predict N      most tokens in the line (default 48)\n"
            "  --fps F                frames per second (default 60)\n"
            "  --budget MS            milliseconds of each frame the NPC may use (default half a frame)\n"
            "  -t, --threads N        threads (default: all CPUs)\n"
            "  -v                     report every frame on stderr\n"
            "  -h, --help             this text\n");
}

/* Whether a is the flag spelled s or (when not NULL) l. */
static int is(const char *a, const char *s, const char *l) { return !strcmp(a, s) || (l && !strcmp(a, l)); }

/* text as a number in lo..hi (a whole one when whole is set). Returns 1, or 0 after saying
   why on stderr. */
static int number(const char *flag, const char *text, double lo, double hi, int whole, double *out) {
    char *end;
    *out = strtod(text, &end);
    if (end != text && !*end && *out >= lo && *out <= hi && (!whole || *out == (double)(long)*out)) return 1;
    fprintf(stderr, "npc: %s: '%s' is not a%s number in %.10g..%.10g\n", flag, text, whole ? " whole" : "", lo, hi);
    return 0;
}

static void sleep_until(double t) {
    double left = t - llm_seconds();
    if (left <= 0.0) return;
#if defined(_WIN32)
    Sleep((DWORD)(left * 1000.0));
#else
    {
        struct timespec ts;
        ts.tv_sec = (time_t)left;
        ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
        nanosleep(&ts, NULL);
    }
#endif
}

/* The rest of the game's frame: here a little arithmetic stands for physics and drawing. */
static double game_work(int frame) {
    double x = frame, s = 0.0;
    int i;
    for (i = 0; i < 20000; i++) s += (x + i) * 1e-9;
    return s;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *prompt = "And the old man answered and said unto them,";
    double max_tokens = 48, fps = 60, budget_ms = 0, threads = 0;
    int verbose = 0, frame, i, steps = 0, late = 0;
    double slowest = 0.0, typical = 0.0, total = 0.0, t0, sink = 0.0;
    llm_sampler sampler;
    llm_generate_desc gd;
    llm_generation *g = NULL;
    llm_step step;
    llm_ctx_desc cd;
    llm_model_desc md;
    llm_model *model;
    llm_ctx *ctx;
    llm_result r;
    memset(&sampler, 0, sizeof sampler); /* zero fields: off, or their defaults */
    memset(&gd, 0, sizeof gd);
    memset(&step, 0, sizeof step);
    memset(&cd, 0, sizeof cd);
    sampler.temperature = 0.8f;
    sampler.top_p = 0.95f;
    sampler.seed = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = argv[i + 1]; /* argv[argc] is NULL */
        int ok = 1;
        if (is(a, "-h", "--help")) { usage(stdout); return 0; }
        if (is(a, "-v", NULL)) { verbose = 1; continue; }
        if (a[0] != '-') { fprintf(stderr, "npc: unexpected argument '%s' (options start with '-'; the model is -m FILE)\n", a); return 2; }
        if (is(a, "-m", "--model")) model_path = v;
        else if (is(a, "-p", "--prompt")) prompt = v;
        else if (is(a, "-n", "--n-predict")) ok = v && number(a, v, 1, INT32_MAX, 1, &max_tokens);
        else if (is(a, "--fps", NULL)) ok = v && number(a, v, 0.001, 1e6, 0, &fps);
        else if (is(a, "--budget", NULL)) ok = v && number(a, v, 0, 1e6, 0, &budget_ms);
        else if (is(a, "-t", "--threads")) ok = v && number(a, v, 0, LLM_MAX_THREADS, 1, &threads);
        else { fprintf(stderr, "npc: unknown option '%s' (see npc --help)\n", a); return 2; }
        if (!v) { fprintf(stderr, "npc: %s needs a value\n", a); return 2; }
        if (!ok) return 2;
        i++;
    }
    if (!model_path) { fprintf(stderr, "npc: no model: give -m FILE (see npc --help)\n"); return 2; }
    if (budget_ms == 0) budget_ms = 500 / fps;
    memset(&md, 0, sizeof md); /* zero means default */
    errno = 0;
    if ((r = llm_model_open(&model, model_path, &md)) != LLM_OK) {
        fprintf(stderr, "npc: cannot open %s: %s\n", model_path, r == LLM_ERR_IO && errno ? strerror(errno) : llm_result_string(r));
        return 1;
    }
    cd.n_threads = (int32_t)threads;
    if ((r = llm_ctx_open(&ctx, model, &cd)) != LLM_OK) {
        fprintf(stderr, "npc: cannot create a context: %s\n", llm_result_string(r));
        llm_model_close(model);
        return 1;
    }
    gd.sampler = &sampler;
    gd.max_tokens = (int32_t)max_tokens;
    gd.prompt_chunk = 8; /* a prompt step costs about what a few token steps do */
    if ((r = llm_generation_open(&g, ctx, &gd)) != LLM_OK) fprintf(stderr, "npc: %s\n", llm_result_string(r));
    else if ((r = llm_generation_start(g, prompt, strlen(prompt))) != LLM_OK) fprintf(stderr, "npc: %s\n", llm_generation_error(g));
    t0 = llm_seconds();
    for (frame = 0; r == LLM_OK && !step.done; frame++) {
        /* the frame's time counts from when it began, not from when it was due: after a late
           wake-up (a busy machine) no step would ever fit, and the line would never end */
        double start = llm_seconds(), used, took = 0.0;
        sink += game_work(frame);
        used = llm_seconds() - start;
        if (used + typical <= budget_ms / 1000.0 || typical * 1000.0 >= budget_ms) {
            double t = llm_seconds();
            if ((r = llm_generation_step(g, &step)) != LLM_OK) { fprintf(stderr, "npc: %s\n", llm_generation_error(g)); break; }
            took = llm_seconds() - t;
            steps++;
            total += took;
            if (took > slowest) slowest = took;
            typical = steps == 1 ? took : 0.75 * typical + 0.25 * took;
            if (took * 1000.0 > budget_ms) late++;
            if (step.len) { fwrite(step.piece, 1, step.len, stdout); fflush(stdout); }
        }
        if (verbose)
            fprintf(stderr, "npc: frame %d: %s%.2f ms step%s\n", frame, took > 0.0 ? "" : "no step, ", took * 1000.0,
                    step.id >= 0 && took > 0.0 ? ", one token" : "");
        sleep_until(t0 + (frame + 1) / fps);
    }
    if (r == LLM_OK) printf("\n");
    if (r == LLM_OK) fprintf(stderr, "npc: %d tokens in %d frames at %.0f fps (%.2f s); %d steps, %.2f ms on average, %.2f ms at most, "
            "budget %.2f ms, %d steps over it%s\n", llm_generation_stats(g)->n_generated, frame, fps, llm_seconds() - t0, steps,
            steps ? total * 1000.0 / steps : 0.0, slowest * 1000.0, budget_ms, late, sink < 0.0 ? "" : "");
    llm_generation_close(g);
    llm_ctx_close(ctx);
    llm_model_close(model);
    return r == LLM_OK ? 0 : 1;
}
