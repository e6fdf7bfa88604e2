/* Fuzz target: the converter's safetensors header reader. Input: a u64 (little-endian) file
   size, then the first bytes of a .safetensors file (u64 header length, JSON header); the
   tensor data itself is not read. An accepted header has tensors inside the file, of the
   size their shape says, no two sharing a byte or a name. Seeds: tests/fuzz/corpus/fuzz_safetensors. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../../tools/llm_convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char name[] = "fuzz.safetensors";
    char *files[1];
    static llm__cv cv; /* zero: no log, no progress */
    static const llm_convert_desc desc = { 0 };
    llm__cv_source src;
    uint64_t fsize = 0, hlen = 0;
    llm__cv_hparams h;
    llm__cv_plan *p;
    int i;
    cv.desc = &desc;
    if (size < 16) return 0;
    for (i = 0; i < 8; i++) fsize |= (uint64_t)data[i] << (8 * i);
    for (i = 0; i < 8; i++) hlen |= (uint64_t)data[8 + i] << (8 * i);
    /* the checks llm__cv_read_safetensors_header makes before parsing */
    if (fsize < 8 || hlen > fsize - 8 || hlen > size - 16) return 0;
    memset(&src, 0, sizeof src);
    files[0] = name;
    src.files = files;
    src.n_files = 1;
    if (llm__cv_parse_safetensors_header(&cv, &src, 0, (const char *)data + 16, hlen, fsize) == 0) {
        /* what the writer relies on: each tensor's bytes are its shape's, inside the file */
        for (i = 0; i < src.n; i++) {
            const llm__cv_src_tensor *t = &src.t[i];
            long double count = t->dtype == LLM_DTYPE_F32 ? 4 : 2;
            int d;
            for (d = 0; d < t->n_dims; d++) count *= (long double)t->shape[d];
            if (count != (long double)t->size || t->offset < 8 + hlen || t->offset + t->size > fsize) abort();
            for (d = 0; d < i; d++)
                if ((src.t[d].offset < t->offset + t->size && t->offset < src.t[d].offset + src.t[d].size) ||
                    strcmp(src.t[d].name, t->name) == 0)
                    abort();
        }
        /* the converter's tensor selection, for a 2-layer model of the family (a row of llm__cv_families) the first byte picks */
        if ((p = (llm__cv_plan *)malloc(sizeof *p)) != NULL) {
            memset(&h, 0, sizeof h);
            h.fam = &llm__cv_families[data[0] % (sizeof llm__cv_families / sizeof llm__cv_families[0])];
            h.arch = h.fam->arch;
            h.n_layer = 2;
            h.n_embd = h.n_ff = h.head_dim = 2;
            h.n_head = h.n_head_kv = 1;
            h.tied = data[1] & 1;
            h.attn_bias_qkv = h.fam->bias == LLM__CV_BIAS_QKV;
            h.qk_norm = h.fam->qk_norm;
            h.block_norms = h.fam->block_norms;
            (void)llm__cv_plan_tensors(&cv, &src, &h, data[1] & 2, (llm_dtype)(data[2] % LLM_DTYPE_COUNT), (data[1] >> 2) & 1, p);
            free(p);
        }
    }
    for (i = 0; i < src.n; i++) free(src.t[i].name);
    free(src.t);
    return 0;
}
