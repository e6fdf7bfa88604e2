/* npc: a non-player character speaks a line inside a game loop that runs at a fixed rate.

   build/npc -m model.llm [-p TEXT] [-n N] [--fps F] [--budget MS] [sampling flags] [-t N] [-v]

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
#include "sampling.h"

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
            SAMPLING_USAGE
            "                         (defaults: --temp 0.8 --top-p 0.95 --seed 1)\n"
            "  -t, --threads N        threads (default: all CPUs)\n"
            "  -c, --ctx-size N       context size (default: the model's, at most 4096)\n"
            "  -v                     report every frame on stderr\n"
            "  -h, --help             this text\n");
}

static void sleep_until(double t) {
    double left = t - llm__seconds();
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

static const char *const known[] = { "-m", "--model", "-p", "--prompt", "-n", "--n-predict", "--fps", "--budget", "-s", SAMPLING_FLAGS,
                                     "-t", "--threads", "-c", "--ctx-size", "-v", "-h", "--help", NULL };
static const char *const valued[] = { "-m", "-p", "-n", "--fps", "--budget", SAMPLING_FLAGS, "-t", "-c", NULL };

int main(int argc, char **argv) {
    const char *model_path = NULL, *prompt = "And the old man answered and said unto them,";
    int32_t max_tokens = 48;
    int verbose = 0, frame, i, steps = 0, late = 0;
    float fps = 60.0f, budget_ms = 0.0f;
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
    memset(&sampler, 0, sizeof sampler);
    memset(&cd, 0, sizeof cd);
    memset(&gd, 0, sizeof gd);
    memset(&step, 0, sizeof step);
    sampler.temperature = 0.8f;
    sampler.top_p = 0.95f;
    sampler.seed = 1;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *a = flag_name(arg), *v;
        int ok = 1;
        if (!strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "-v")) { verbose = 1; continue; }
        if (!flag_is(a, valued)) { flag_unknown("npc", arg, known); return 2; }
        if (!(v = flag_value(argc, argv, &i))) { fprintf(stderr, "npc: %s needs a value\n", arg); return 2; }
        if ((ok = sampling_parse("npc", a, v, &sampler)) < 0) return 2;
        if (ok) continue;
        ok = 1;
        if (!strcmp(a, "-m")) model_path = v;
        else if (!strcmp(a, "-p")) prompt = v;
        else if (!strcmp(a, "-n")) ok = flag_int("npc", arg, v, 1, INT32_MAX, &max_tokens);
        else if (!strcmp(a, "--fps")) ok = flag_float("npc", arg, v, 0.001f, 1e6f, &fps);
        else if (!strcmp(a, "--budget")) ok = flag_float("npc", arg, v, 0.0f, 1e6f, &budget_ms);
        else if (!strcmp(a, "-t")) ok = flag_int("npc", arg, v, 0, LLM_MAX_THREADS, &cd.n_threads);
        else ok = flag_int("npc", arg, v, 0, INT32_MAX, &cd.n_ctx);
        if (!ok) return 2;
    }
    sampling_done(&sampler);
    if (!model_path) { fprintf(stderr, "npc: no model: give -m FILE (see npc --help)\n"); return 2; }
    warn_build("npc");
    if (budget_ms == 0.0f) budget_ms = 500.0f / fps;
    memset(&md, 0, sizeof md);
    if (!(model = open_model("npc", model_path, &md))) return 1;
    if (!(ctx = open_context("npc", model, &cd))) { llm_model_close(model); return 1; }
    gd.sampler = &sampler;
    gd.max_tokens = max_tokens;
    gd.prompt_chunk = 8; /* a prompt step costs about what a few token steps do */
    if ((r = llm_generation_open(&g, ctx, &gd)) != LLM_OK) fprintf(stderr, "npc: %s\n", llm_result_string(r));
    else if ((r = llm_generation_start(g, prompt, strlen(prompt))) != LLM_OK) fprintf(stderr, "npc: %s\n", llm_generation_error(g));
    t0 = llm__seconds();
    for (frame = 0; r == LLM_OK && !step.done; frame++) {
        /* the frame's time counts from when it began, not from when it was due: after a late
           wake-up (a busy machine) no step would ever fit, and the line would never end */
        double start = llm__seconds(), used, took = 0.0;
        sink += game_work(frame);
        used = llm__seconds() - start;
        if (used + typical <= budget_ms / 1000.0 || typical * 1000.0 >= budget_ms) {
            double t = llm__seconds();
            if ((r = llm_generation_step(g, &step)) != LLM_OK) { fprintf(stderr, "npc: %s\n", llm_generation_error(g)); break; }
            took = llm__seconds() - t;
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
            "budget %.2f ms, %d steps over it%s\n", llm_generation_stats(g)->n_generated, frame, fps, llm__seconds() - t0, steps,
            steps ? total * 1000.0 / steps : 0.0, slowest * 1000.0, budget_ms, late, sink < 0.0 ? "" : "");
    llm_generation_close(g);
    llm_ctx_close(ctx);
    llm_model_close(model);
    return r == LLM_OK ? 0 : 1;
}
