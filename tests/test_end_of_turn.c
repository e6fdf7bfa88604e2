/* The chat template's end-of-turn token stops a reply even when it is not an eos id of
   generation_config.json. The model: Qwen3's tokenizer and chat template
   (../shared/testdata/tokenizers/qwen3) on a llama checkpoint written here whose only
   non-zero weights make <|im_end|> the most likely next token after any input (zero
   attention and MLP leave the residual stream at the input's embedding; the embeddings are
   (0.01, 0, 0, 0) except <|im_end|>'s (1, 0, 0, 0), and the LM head is tied). Its eos id
   is <|endoftext|> only. Checked through llm_generate and through build/chat. */
#define _POSIX_C_SOURCE 200809L
#include "../llm.h"
#include "need.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32) /* not run on Windows (POSIX shell commands); builds there */
#define WIFEXITED(status) 1
#define WEXITSTATUS(status) (status)
#else
#include <sys/wait.h>
#endif

#define SRC "../shared/testdata/tokenizers/qwen3"
#define DIR "build/tests/end_of_turn"
#define N_VOCAB 151936
#define IM_END 151645
#define ENDOFTEXT 151643

static int write_checkpoint(void) {
    static const char *const names[] = {
        "model.embed_tokens.weight", "model.norm.weight", "model.layers.0.input_layernorm.weight",
        "model.layers.0.post_attention_layernorm.weight", "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.v_proj.weight",
        "model.layers.0.self_attn.o_proj.weight", "model.layers.0.mlp.gate_proj.weight",
        "model.layers.0.mlp.up_proj.weight", "model.layers.0.mlp.down_proj.weight",
    };
    static const long shapes[][2] = { { N_VOCAB, 4 }, { 4, 0 }, { 4, 0 }, { 4, 0 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 8, 4 }, { 8, 4 }, { 4, 8 } };
    char header[4096];
    size_t i, hn = 0, off = 0;
    unsigned char len8[8];
    FILE *f;
    float *data;
    hn += (size_t)snprintf(header + hn, sizeof header - hn, "{");
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t bytes = 4u * (size_t)shapes[i][0] * (size_t)(shapes[i][1] ? shapes[i][1] : 1);
        if (shapes[i][1])
            hn += (size_t)snprintf(header + hn, sizeof header - hn, "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%ld,%ld],\"data_offsets\":[%lu,%lu]}",
                                   i ? "," : "", names[i], shapes[i][0], shapes[i][1], (unsigned long)off, (unsigned long)(off + bytes));
        else
            hn += (size_t)snprintf(header + hn, sizeof header - hn, "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%ld],\"data_offsets\":[%lu,%lu]}",
                                   i ? "," : "", names[i], shapes[i][0], (unsigned long)off, (unsigned long)(off + bytes));
        off += bytes;
    }
    hn += (size_t)snprintf(header + hn, sizeof header - hn, "}");
    while (hn % 8) header[hn++] = ' ';
    for (i = 0; i < 8; i++) len8[i] = (unsigned char)((unsigned long long)hn >> (8 * i));
    if (!(data = (float *)calloc(off / 4, sizeof *data))) return -1;
    for (i = 0; i < N_VOCAB; i++) data[i * 4] = 0.01f;             /* embed_tokens */
    data[(size_t)IM_END * 4] = 1.0f;
    for (i = 0; i < 12; i++) data[(size_t)N_VOCAB * 4 + i] = 1.0f; /* the three norms */
    if (!(f = fopen(DIR "/model.safetensors", "wb"))) { free(data); return -1; }
    fwrite(len8, 1, 8, f);
    fwrite(header, 1, hn, f);
    fwrite(data, 1, off, f); /* little-endian hosts only, as the safetensors format */
    free(data);
    if (fclose(f)) return -1;
    if (!(f = fopen(DIR "/config.json", "wb"))) return -1;
    fprintf(f, "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", \"vocab_size\": %d, \"hidden_size\": 4,\n"
               " \"intermediate_size\": 8, \"num_hidden_layers\": 1, \"num_attention_heads\": 1, \"num_key_value_heads\": 1,\n"
               " \"max_position_embeddings\": 256, \"rms_norm_eps\": 1e-6, \"rope_theta\": 10000.0, \"tie_word_embeddings\": true,\n"
               " \"hidden_act\": \"silu\", \"eos_token_id\": %d}\n", N_VOCAB, ENDOFTEXT);
    if (fclose(f)) return -1;
    if (!(f = fopen(DIR "/generation_config.json", "wb"))) return -1;
    fprintf(f, "{\"eos_token_id\": %d}\n", ENDOFTEXT);
    return fclose(f) ? -1 : 0;
}

static int run(const char *cmd) {
    int st = system(cmd);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

static char *read_all(const char *path) {
    static char buf[1 << 16];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    return buf;
}

static int count_tokens(void *user, const char *piece, size_t len, int32_t id) {
    (void)piece; (void)len;
    if (id >= 0) ++*(int *)user;
    return 0;
}

static void test_library(const llm_model *m) {
    llm_chat_message msg = { "user", "Hello!" };
    llm_generate_desc d;
    llm_generate_stats st;
    llm_ctx *c;
    char prompt[512];
    size_t len;
    int n = 0;
    CHECK(!strcmp(llm_chat_template(m), "qwen3"), "template %s", llm_chat_template(m));
    CHECK(llm_token_find(m, "<|im_end|>", 10) == IM_END, "<|im_end|> is %d", llm_token_find(m, "<|im_end|>", 10));
    CHECK(llm_model_info_get(m)->n_stop_ids == 1 && llm_model_info_get(m)->stop_ids[0] == ENDOFTEXT, "eos ids");
    CHECK(llm_chat_render(m, &msg, 1, 1, NULL, prompt, sizeof prompt, &len, NULL) == LLM_OK, "render");
    if (llm_ctx_open(&c, m, NULL) != LLM_OK) { CHECK(0, "context"); return; }
    memset(&d, 0, sizeof d);
    d.max_tokens = 5;
    d.on_token = count_tokens;
    d.user = &n;
    CHECK(llm_generate(c, prompt, len, &d, &st) == LLM_OK && st.stop == LLM_STOP_TOKEN && st.stop_id == IM_END && n == 0 &&
          st.n_generated == 0, "the end-of-turn token must stop: stop %d (%d), %d tokens", st.stop, st.stop_id, n);
    d.template_name = "raw"; /* no end-of-turn token: only the eos id stops */
    CHECK(llm_generate(c, prompt, len, &d, &st) == LLM_OK && st.stop == LLM_STOP_MAX && n == 5, "raw: stop %d, %d tokens", st.stop, n);
    d.template_name = "gemma"; /* another template's end-of-turn token is not this one */
    n = 0;
    CHECK(llm_generate(c, prompt, len, &d, &st) == LLM_OK && st.stop == LLM_STOP_MAX && n == 5, "gemma: stop %d", st.stop);
    d.template_name = NULL;
    d.ignore_eos = 1;
    n = 0;
    CHECK(llm_generate(c, prompt, len, &d, &st) == LLM_OK && st.stop == LLM_STOP_MAX && n == 5, "ignore_eos: stop %d", st.stop);
    llm_ctx_close(c);
}

static void test_program(void) {
    char *out;
    CHECK(run("echo 'Hello!' | build/chat -m " DIR ".llm --temp 0 -v -t 1 -n 5 > " DIR "/out.txt 2> " DIR "/err.txt") == 0, "build/chat failed");
    out = read_all(DIR "/err.txt");
    CHECK(strstr(out, "reply 0 tokens") && strstr(out, "end of turn"), "build/chat must end the turn at once: %s", out);
    CHECK(!strcmp(read_all(DIR "/out.txt"), "\n"), "stdout: '%s'", read_all(DIR "/out.txt"));
    CHECK(run("echo 'Hello!' | build/chat -m " DIR ".llm --template raw --temp 0 -v -t 1 -n 5 > " DIR "/out.txt 2> " DIR "/err.txt") == 0, "raw");
    out = read_all(DIR "/err.txt");
    CHECK(strstr(out, "reply 5 tokens") && strstr(out, "reply limit"), "build/chat --template raw: %s", out);
}

int main(void) {
    llm_model *m;
    FILE *f = fopen(SRC "/tokenizer.json", "rb");
    if (!f) return skip_test("test_end_of_turn", SRC);
    fclose(f);
    if (run("mkdir -p " DIR " && cp " SRC "/tokenizer.json " SRC "/tokenizer_config.json " DIR "/") != 0 || write_checkpoint()) {
        printf("FAIL cannot write " DIR "\n");
        return 1;
    }
    if (run("build/convert " DIR " " DIR ".llm > " DIR "/convert.log 2>&1") != 0) { printf("FAIL build/convert (see " DIR "/convert.log)\n"); return 1; }
    if (llm_model_open(&m, DIR ".llm", NULL) != LLM_OK) { printf("FAIL cannot open " DIR ".llm\n"); return 1; }
    test_library(m);
    llm_model_close(m);
    test_program();
    return check_summary("end-of-turn tokens stop replies");
}
