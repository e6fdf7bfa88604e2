/* A model file larger than 4 GiB (sparse: its two big tensors are holes), opened through the
   platform's file mapping. With 64-bit pointers it opens, and the row that lies past 4 GiB
   reads back (64-bit sizes and offsets all the way through: stat/mmap, or GetFileSizeEx and
   CreateFileMapping/MapViewOfFile on Windows). With 32-bit pointers the open is refused with
   an error, whether mapped or read. The file is removed at the end. */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_log[256];
static void keep_log(void *user, const char *msg) { (void)user; snprintf(last_log, sizeof last_log, "%s", msg); }

/* vocab 2^20 x hidden 1280 f16 embeddings and LM head, 2.5 GiB each (each fits a 32-bit
   size_t, so a 32-bit build can write the file too), at the end of the file. */
static int write_big_model(const char *path, uint64_t *file_size, uint64_t *embd_off) {
    enum { V = 1 << 20, D = 1280 };
    static const char *const names[] = {
        "model.layers.0.input_layernorm.weight", "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.v_proj.weight",
        "model.layers.0.self_attn.o_proj.weight", "model.layers.0.post_attention_layernorm.weight",
        "model.layers.0.mlp.gate_proj.weight", "model.layers.0.mlp.up_proj.weight",
        "model.layers.0.mlp.down_proj.weight", "model.norm.weight", "model.embed_tokens.weight", "lm_head.weight",
    };
    const int64_t shapes[][2] = { { D, 0 }, { 2, D }, { 2, D }, { 2, D }, { D, 2 }, { D, 0 }, { 1, D }, { 1, D }, { D, 1 }, { D, 0 }, { V, D }, { V, D } };
    llm_builder *b;
    const void *hdr;
    size_t hdr_size, idx, i, k;
    FILE *f;
    int ok = 1;
    static float ones[D], small[2 * D];
    static uint16_t ones_f16[D];
    for (k = 0; k < D; k++) { ones[k] = 1.0f; ones_f16[k] = 0x3c00; }
    for (k = 0; k < 2 * D; k++) small[k] = 0.01f;
    if (llm_builder_create(&b) != LLM_OK) return 0;
    ok &= llm_builder_set_string(b, "general.architecture", "llama", 5) == LLM_OK;
    ok &= llm_builder_set_i32(b, "llm.vocab_size", V) == LLM_OK && llm_builder_set_i32(b, "llm.hidden_size", D) == LLM_OK;
    ok &= llm_builder_set_i32(b, "llm.intermediate_size", 1) == LLM_OK && llm_builder_set_i32(b, "llm.num_layers", 1) == LLM_OK;
    ok &= llm_builder_set_i32(b, "llm.num_heads", 1) == LLM_OK && llm_builder_set_i32(b, "llm.num_kv_heads", 1) == LLM_OK;
    ok &= llm_builder_set_i32(b, "llm.head_dim", 2) == LLM_OK && llm_builder_set_i32(b, "llm.max_position_embeddings", 16) == LLM_OK;
    ok &= llm_builder_set_f64(b, "llm.rms_norm_eps", 1e-5) == LLM_OK && llm_builder_set_f64(b, "llm.rope_theta", 1e4) == LLM_OK;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        ok &= llm_builder_add_tensor(b, names[i], shapes[i][0] == V ? LLM_DTYPE_F16 : LLM_DTYPE_F32, shapes[i][1] ? 2 : 1,
                                     shapes[i], &idx) == LLM_OK;
    if (!ok || llm_builder_header(b, &hdr, &hdr_size) != LLM_OK || !(f = fopen(path, "wb"))) { llm_builder_destroy(b); return 0; }
    ok = fwrite(hdr, 1, hdr_size, f) == hdr_size;
    for (i = 0; ok && i + 2 < sizeof names / sizeof names[0]; i++) {
        uint64_t size = llm_builder_tensor_size(b, i);
        ok = fseeko(f, (off_t)llm_builder_tensor_offset(b, i), SEEK_SET) == 0 &&
             fwrite(shapes[i][1] ? (const void *)small : (const void *)ones, 1, (size_t)size, f) == size;
    }
    i++; /* the embeddings stay a hole; the LM head's last row is written so the test can find it */
    *file_size = llm_builder_file_size(b);
    *embd_off = llm_builder_tensor_offset(b, i);
    ok = ok && fseeko(f, (off_t)(*embd_off + (uint64_t)(V - 1) * D * 2), SEEK_SET) == 0 && fwrite(ones_f16, 2, D, f) == D;
    ok = ok && (*embd_off + llm_builder_tensor_size(b, i) == *file_size ||
                (fseeko(f, (off_t)(*file_size - 1), SEEK_SET) == 0 && fputc(0, f) == 0));
    ok = fclose(f) == 0 && ok;
    llm_builder_destroy(b);
    return ok;
}

int main(void) {
    char path[512];
    uint64_t size = 0, embd_off = 0;
    llm_model_desc md;
    llm_model *m = NULL;
    llm_result r;
    int failed = 0;
    memset(&md, 0, sizeof md);
    md.log = keep_log;
    snprintf(path, sizeof path, "%s/tests/bigfile-test.llm", getenv("BUILD") ? getenv("BUILD") : "build");
    if (!write_big_model(path, &size, &embd_off)) {
        remove(path);
        printf("SKIP cannot write a sparse %llu-byte file here\n", (unsigned long long)size);
        return 0;
    }
    r = llm_model_open(&m, path, &md);
    if (sizeof(void *) >= 8) {
        const llm_tensor *t = m ? llm_model_tensor(m, "lm_head.weight") : NULL;
        const llm_tensor *e = m ? llm_model_tensor(m, "model.embed_tokens.weight") : NULL;
        uint16_t last = 0, first = 1;
        if (r != LLM_OK || !t) {
            printf("a %llu-byte model did not open: %s (%s)\n", (unsigned long long)size, llm_result_string(r), last_log);
            failed = 1;
        } else {
            memcpy(&last, (const char *)t->data + t->size - 2, 2);
            memcpy(&first, e->data, 2);
            if (size <= ((uint64_t)1 << 32) || embd_off + t->size != size || last != 0x3c00 || first != 0) {
                printf("the row past 4 GiB reads wrong: size %llu, first %04x, last %04x\n", (unsigned long long)size, first, last);
                failed = 1;
            } else {
                printf("a %.2f GiB file opened mapped; its last row, past 4 GiB, reads back\n", (double)size / (1 << 30));
            }
        }
        llm_model_close(m);
    } else {
        if (r == LLM_OK) { printf("a %llu-byte file opened in a 32-bit address space\n", (unsigned long long)size); failed = 1; }
        llm_model_close(m);
        md.no_mmap = 1;
        if (llm_model_open(&m, path, &md) == LLM_OK) { printf("opened without mmap in a 32-bit address space\n"); failed = 1; }
        llm_model_close(m);
        if (!failed) printf("a %.2f GiB file is refused in a 32-bit address space: %s\n", (double)size / (1 << 30), last_log);
    }
    remove(path);
    return failed;
}
