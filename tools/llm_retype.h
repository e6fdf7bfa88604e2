/* llm_retype.h - an existing .llm file into another tensor type: `convert in.llm out.llm
   --dtype T`, so a user does not need the checkpoint a second time.

   Included by tools/llm_convert.h's implementation (it uses that file's llm__cv_ helpers).
   The input is opened and validated by llm_model_open; every metadata entry is copied as it
   is, in file order; each matrix is read back to f32 (llm__get_row, what the forward pass's
   embedding lookup uses) and written with the type --dtype asks, by the same rule as a
   conversion from the checkpoint (llm__cv_matrix_dtype); a tensor already of that type and
   the norms and biases (f32) are copied byte for byte. From a file of the checkpoint's own
   types (or f32) the result is therefore the file a direct conversion writes. */
#if defined(LLM_CONVERT_IMPLEMENTATION) && !defined(LLM_RETYPE_DONE)
#define LLM_RETYPE_DONE

static int llm__rt_is_llm_file(const char *path) {
    FILE *f = fopen(path, "rb");
    uint8_t m[4];
    int yes;
    if (!f) return 0;
    yes = fread(m, 1, 4, f) == 4 && memcmp(m, LLM_FILE_MAGIC, 4) == 0;
    fclose(f);
    return yes;
}

static void llm__rt_log_to_cv(void *user, const char *msg) {
    llm__cv *cv = (llm__cv *)user;
    snprintf(cv->msg, sizeof cv->msg, "%s", msg);
}

/* The metadata entries of m, unchanged and in order. */
static int llm__rt_copy_meta(llm__cv *cv, llm_builder *b, const llm_model *m) {
    size_t i;
    char key[LLM__MAX_NAME + 1];
    for (i = 0; i < m->n_meta; i++) {
        const llm__meta *e = &m->meta[i];
        memcpy(key, e->key, e->key_len);
        key[e->key_len] = 0;
        if (llm__cv_builder_meta(b, key, e->type, e->data, (size_t)e->size) != LLM_OK) return llm__cv_oom(cv);
    }
    return 0;
}

/* One tensor of the input as type dt into dst. */
static int llm__rt_convert_tensor(llm__cv *cv, const llm_tensor *t, llm_dtype dt, uint8_t *dst, size_t size) {
    int64_t rows = 1, cols = t->shape[t->n_dims - 1], r;
    int d;
    float *f;
    if (dt == t->dtype) { memcpy(dst, t->data, size); return 0; }
    for (d = 0; d < t->n_dims - 1; d++) rows *= t->shape[d];
    if (t->n_dims > 2 || cols > 0x7FFFFFFF) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tensor '%s': cannot change the type of a %d-dimensional tensor", t->name, t->n_dims);
    if (!(f = (float *)malloc((size_t)rows * (size_t)cols * sizeof(float)))) return llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "out of memory for tensor '%s'", t->name);
    for (r = 0; r < rows; r++) llm__get_row(t, r, f + (size_t)r * (size_t)cols, (int)cols);
    if (llm__cv_quantize(cv, dt, f, rows, cols, dst) != LLM_OK) {
        free(f);
        return llm__cv_fail(cv, "tensor '%s': cannot convert %s to %s", t->name, llm_dtype_name(t->dtype), llm_dtype_name(dt));
    }
    free(f);
    return 0;
}

static int llm__rt_write(llm__cv *cv, const char *out_path, const llm_model *m, uint64_t *out_bytes) {
    llm_builder *b = NULL;
    FILE *out = NULL;
    const void *hdr;
    size_t hdr_size, idx, i;
    uint8_t *buf = NULL;
    llm_dtype *dst = NULL;
    llm__cv_hparams h;
    int rc = -1;
    uint64_t pos;
    llm_convert_progress *pg = &cv->pg;
    memset(&h, 0, sizeof h);
    /* what the k-quant recipes read: the layer count and whether the embedding is the LM head */
    h.n_vocab = m->info.n_vocab;
    h.n_layer = m->info.n_layer;
    h.tied = m->info.tied_embeddings;
    if (!(dst = (llm_dtype *)malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *dst)) || llm_builder_create(&b) != LLM_OK) { llm__cv_oom(cv); goto done; }
    if (llm__rt_copy_meta(cv, b, m)) goto done;
    for (i = 0; i < m->n_tensors; i++) {
        const llm_tensor *t = &m->tensors[i];
        llm__cv_src_tensor st;
        memset(&st, 0, sizeof st);
        st.name = (char *)t->name;
        st.n_dims = t->n_dims;
        memcpy(st.shape, t->shape, sizeof st.shape);
        dst[i] = t->n_dims == 1 ? LLM_DTYPE_F32 : llm__cv_weight_dtype(&st, &h, cv->desc->dtype, cv->desc->recipe);
        if (llm_builder_add_tensor(b, t->name, dst[i], t->n_dims, t->shape, &idx) != LLM_OK) { llm__cv_fail(cv, "cannot add tensor '%s'", t->name); goto done; }
    }
    if (llm_builder_header(b, &hdr, &hdr_size) != LLM_OK) { llm__cv_fail(cv, "cannot lay out the file"); goto done; }
    pg->n_total = (int)m->n_tensors;
    for (i = 0; i < m->n_tensors; i++) pg->bytes_total += llm_builder_tensor_size(b, i);
    if (!(out = llm__cv_create_temp(cv, out_path))) goto done;
    if (fwrite(hdr, 1, hdr_size, out) != hdr_size) { llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", cv->tmp, strerror(errno)); goto done; }
    pos = hdr_size;
    for (i = 0; i < m->n_tensors; i++) {
        const llm_tensor *t = &m->tensors[i];
        uint64_t off = llm_builder_tensor_offset(b, i), size = llm_builder_tensor_size(b, i);
        free(buf);
        if (!(buf = (uint8_t *)malloc((size_t)size ? (size_t)size : 1))) { llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "out of memory for tensor '%s'", t->name); goto done; }
        if (llm__rt_convert_tensor(cv, t, dst[i], buf, (size_t)size)) goto done;
        if (llm__cv_put_tensor(cv, out, &pos, off, buf, size, t->name, t->dtype, t->n_dims, t->shape, dst[i])) goto done;
    }
    if (llm__cv_write_zeros(out, llm_builder_file_size(b) - pos) || fflush(out) != 0 || ferror(out))
        { llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", cv->tmp, strerror(errno)); goto done; }
    *out_bytes = llm_builder_file_size(b);
    rc = 0;
done:
    if (out && fclose(out) != 0 && rc == 0) rc = llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", cv->tmp, strerror(errno));
    free(buf);
    free(dst);
    llm_builder_destroy(b);
    return rc;
}

/* llm_convert for a .llm input. */
static llm_result llm__rt_run(llm__cv *cv, const char *in, const char *out) {
    llm_model *m = NULL;
    llm_model_desc md;
    uint64_t bytes = 0;
    llm_result r;
    if (llm__cv_check_target(cv, out)) return cv->rc;
    if (!cv->desc->has_dtype) { llm__cv_fail_as(cv, LLM_ERR_INVALID_ARGUMENT, "%s is already a model file: --dtype says what to convert it to", in); return cv->rc; }
    if (cv->desc->vocab_only) { llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "--vocab-only is not supported for a model file"); return cv->rc; }
    if (!strcmp(in, out)) { llm__cv_fail_as(cv, LLM_ERR_INVALID_ARGUMENT, "the output would replace the input %s", in); return cv->rc; }
    llm__cv_log(cv, "reading %s", in);
    memset(&md, 0, sizeof md);
    md.log = llm__rt_log_to_cv;
    md.log_user = cv;
    if ((r = llm_model_open(&m, in, &md)) != LLM_OK) {
        char why[1024];
        snprintf(why, sizeof why, "%s", cv->msg);
        llm__cv_fail_as(cv, r, "%s: %s", in, why[0] ? why : llm_result_string(r));
        return cv->rc;
    }
    if (m->vocab_only || m->n_tensors == 0) llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s has no tensors (a vocab-only file)", in);
    else {
        int written = !llm__rt_write(cv, out, m, &bytes);
        llm__cv_put_in_place(cv, written, out, 0, bytes);
    }
    llm_model_close(m);
    return cv->rc;
}

#endif /* LLM_CONVERT_IMPLEMENTATION && !LLM_RETYPE_DONE */
