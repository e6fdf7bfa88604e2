/* simple: the shortest complete chat program. Loads a model, renders one user message
   with the model's chat template, streams the reply.

   build/simple model.llm "Why is the sea salt?" */
#define LLM_IMPLEMENTATION
#include "../llm.h"

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

int main(int argc, char **argv) {
    llm_model *model;
    llm_ctx *ctx;
    llm_chat_message msg = { "user", argc > 2 ? argv[2] : "Hello!" };
    llm_sampler sampler;
    llm_generate_desc gen;
    char *prompt;
    size_t len;
    if (argc < 2) { fprintf(stderr, "usage: simple model.llm [message]\n"); return 2; }
    if (llm_model_open(&model, argv[1], NULL) != LLM_OK || llm_ctx_open(&ctx, model, NULL) != LLM_OK) {
        fprintf(stderr, "simple: cannot load %s\n", argv[1]);
        return 1;
    }
    llm_chat_render(model, &msg, 1, 1, NULL, NULL, 0, &len, NULL); /* the prompt's size */
    if (!(prompt = (char *)malloc(len + 1)) || llm_chat_render(model, &msg, 1, 1, NULL, prompt, len + 1, &len, NULL) != LLM_OK) {
        fprintf(stderr, "simple: the chat template refuses the message\n");
        return 1;
    }
    memset(&sampler, 0, sizeof sampler); /* zero means off or default */
    memset(&gen, 0, sizeof gen);
    sampler.temperature = 0.7f;
    sampler.top_p = 0.9f;
    sampler.seed = 1;
    gen.sampler = &sampler;
    gen.max_tokens = 200;
    gen.on_token = print_piece;
    if (llm_generate(ctx, prompt, len, &gen, NULL) != LLM_OK) fprintf(stderr, "simple: %s\n", llm_ctx_error(ctx));
    printf("\n");
    free(prompt);
    llm_ctx_close(ctx);
    llm_model_close(model);
    return 0;
}
