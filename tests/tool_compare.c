/* compare: max |a - b| between two float32 little-endian logit files.

   tool_compare OURS.f32 GOLDEN.f32 TOL [VOCAB COLS.txt [TOP.txt]]
   OURS holds positions x VOCAB logits; with VOCAB and COLS, GOLDEN holds positions x
   len(COLS) logits at the listed vocabulary columns. With TOP (lines `pos id:logit ...`,
   the golden's largest logits over the whole vocabulary first), the argmax of OURS over the
   whole vocabulary must be the golden's at every position. Exits 1 when the largest
   difference is above TOL, when an argmax differs, or when the files do not line up. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static float *load(const char *path, long *n) {
    FILE *f = fopen(path, "rb");
    float *p;
    if (!f) { fprintf(stderr, "compare: cannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END); *n = ftell(f) / 4; fseek(f, 0, SEEK_SET);
    p = (float *)malloc((size_t)*n * 4 + 4);
    if (!p || fread(p, 4, (size_t)*n, f) != (size_t)*n) { fprintf(stderr, "compare: cannot read %s\n", path); exit(2); }
    fclose(f);
    return p;
}

int main(int argc, char **argv) {
    long na, nb, vocab = 0, ncols = 0, p, i, positions, worst_pos = -1, worst_col = -1;
    long *cols = NULL;
    float *a, *b;
    double tol, worst = 0;
    long argmax_bad = 0;
    if (argc != 4 && argc != 6 && argc != 7) { fprintf(stderr, "usage: tool_compare OURS GOLDEN TOL [VOCAB COLS [TOP]]\n"); return 2; }
    a = load(argv[1], &na);
    b = load(argv[2], &nb);
    tol = atof(argv[3]);
    if (argc >= 6) {
        FILE *f = fopen(argv[5], "r");
        long c, cap = 0;
        vocab = atol(argv[4]);
        if (!f) { fprintf(stderr, "compare: cannot open %s\n", argv[5]); return 2; }
        while (fscanf(f, "%ld", &c) == 1) {
            if (ncols == cap) { cap = cap * 2 + 64; cols = (long *)realloc(cols, (size_t)cap * sizeof *cols); }
            cols[ncols++] = c;
        }
        fclose(f);
    } else {
        vocab = ncols = 1;
    }
    if (argc >= 6 ? (na % vocab || nb % ncols || na / vocab != nb / ncols) : na != nb) {
        fprintf(stderr, "compare: sizes do not line up (%ld and %ld floats)\n", na, nb);
        return 1;
    }
    positions = argc >= 6 ? na / vocab : na;
    for (p = 0; p < positions; p++)
        for (i = 0; i < ncols; i++) {
            double x = argc >= 6 ? a[p * vocab + cols[i]] : a[p], y = argc >= 6 ? b[p * ncols + i] : b[p];
            double d = fabs(x - y);
            if (!(d <= worst)) { worst = d; worst_pos = p; worst_col = argc >= 6 ? cols[i] : p; }
        }
    printf("max abs diff %.3g (position %ld, column %ld) over %ld values, tolerance %.3g", worst, worst_pos, worst_col,
           positions * ncols, tol);
    if (argc == 7) {
        FILE *f = fopen(argv[6], "r");
        long pos, id, best;
        if (!f) { fprintf(stderr, "compare: cannot open %s\n", argv[6]); return 2; }
        for (p = 0; p < positions; p++) {
            int ch;
            if (fscanf(f, "%ld %ld:", &pos, &id) != 2 || pos != p) { fprintf(stderr, "compare: %s: no line for position %ld\n", argv[6], p); return 2; }
            while ((ch = fgetc(f)) != EOF && ch != '\n') {}
            for (best = 0, i = 1; i < vocab; i++) if (a[p * vocab + i] > a[p * vocab + best]) best = i;
            if (best != id) { if (!argmax_bad) fprintf(stderr, "compare: position %ld: argmax %ld, golden %ld\n", p, best, id); argmax_bad++; }
        }
        fclose(f);
        printf("; argmax equal at %ld of %ld positions", positions - argmax_bad, positions);
    }
    printf("\n");
    free(a);
    free(b);
    free(cols);
    return worst <= tol && !argmax_bad ? 0 : 1;
}
