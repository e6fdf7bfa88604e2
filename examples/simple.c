/* simple: the shortest complete chat program. Loads a model, renders one user message
   with the model's chat template, streams the reply.

   build/simple model.llm "Why is the sea salt?" */
#define LLM_IMPLEMENTATION
#include "../llm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Called for every token of the reply; returning nonzero would stop it. */
static int print_piece(void *user, const char *piece, size_t len, int32_t id) {
    (void)user; (void)id;
    if (piece) fwrite(piece, 1, len, stdout);
    fflush(stdout);
    return 0;
}

/* Keeps the library's detail message of a failed open or generation. */
static void keep_error(void *user, const char *message) { snprintf((char *)user, 256, "%s", message); }

int main(int argc, char **argv) {
    llm_model *model = NULL;
    llm_model_desc md;
    llm_ctx *ctx = NULL;
    llm_chat_message msg = { "user", argc > 2 ? argv[2] : "Hello!" };
    llm_sampler sampler;
    llm_generate_desc gen;
    char *prompt = NULL, error[256] = "";
    size_t len;
    llm_result r;
    int rc = 1;
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) { printf("usage: simple model.llm [message]\n"); return 0; }
    if (argc > 1 && argv[1][0] == '-') { fprintf(stderr, "simple: unknown option '%s' (see simple --help)\n", argv[1]); return 2; }
    if (argc < 2 || argc > 3) { fprintf(stderr, "usage: simple model.llm [message]\n"); return 2; }
    memset(&md, 0, sizeof md); /* zero means default */
    md.log = keep_error;
    md.log_user = error;
    errno = 0;
    if ((r = llm_model_open(&model, argv[1], &md)) != LLM_OK) {
        fprintf(stderr, "simple: cannot open %s: %s\n", argv[1], r == LLM_ERR_IO && errno ? strerror(errno) : error);
        return 1;
    }
    if ((r = llm_ctx_open(&ctx, model, NULL)) != LLM_OK) { fprintf(stderr, "simple: cannot create a context: %s\n", llm_result_string(r)); goto done; }
    llm_chat_render(model, &msg, 1, 1, NULL, NULL, 0, &len, NULL); /* the prompt's size */
    if (!(prompt = (char *)malloc(len + 1)) || llm_chat_render(model, &msg, 1, 1, NULL, prompt, len + 1, &len, NULL) != LLM_OK) {
        fprintf(stderr, "simple: the chat template refuses the message\n");
        goto done;
    }
    memset(&sampler, 0, sizeof sampler); /* zero means off or default */
    memset(&gen, 0, sizeof gen);
    sampler.temperature = 0.7f;
    sampler.top_p = 0.9f;
    sampler.seed = 1;
    gen.sampler = &sampler;
    gen.max_tokens = 200;
    gen.on_token = print_piece;
    gen.log = keep_error;
    gen.log_user = error;
    rc = llm_generate(ctx, prompt, len, &gen, NULL) != LLM_OK;
    printf("\n"); /* the reply's line ends before an error is said on stderr */
    fflush(stdout);
    if (rc) fprintf(stderr, "simple: %s\n", error);
done:
    free(prompt);
    llm_ctx_close(ctx);
    llm_model_close(model);
    return rc;
}
