/* top1: the argmax of every position of a logit file against a golden top20.txt.

   tool_top1 OURS.f32 VOCAB TOP20.txt
   OURS holds positions x VOCAB float32 logits; each line of TOP20.txt is `pos id:logit ...`
   with the largest logit first. Exits 1 when a position's argmax differs (ties of the two
   largest golden logits accept either id), when the position counts differ, or when a
   logit is not finite. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(int argc, char **argv) {
    FILE *f, *g;
    long vocab, pos = 0, p, i, best, id1, id2, bad = 0, n;
    double l1, l2;
    float *row;
    if (argc != 4) { fprintf(stderr, "usage: tool_top1 OURS VOCAB TOP20\n"); return 2; }
    vocab = atol(argv[2]);
    if (vocab < 1 || !(row = (float *)malloc((size_t)vocab * sizeof *row))) return 2;
    if (!(f = fopen(argv[1], "rb")) || !(g = fopen(argv[3], "r"))) { fprintf(stderr, "top1: cannot open the inputs\n"); return 2; }
    while ((n = (long)fread(row, sizeof *row, (size_t)vocab, f)) == vocab) {
        int c;
        if (fscanf(g, "%ld %ld:%lf %ld:%lf", &p, &id1, &l1, &id2, &l2) != 5 || p != pos) {
            fprintf(stderr, "top1: %s has no line for position %ld\n", argv[3], pos);
            return 1;
        }
        while ((c = fgetc(g)) != EOF && c != '\n') {}
        for (best = 0, i = 1; i < vocab; i++) if (row[i] > row[best]) best = i;
        for (i = 0; i < vocab; i++) if (!isfinite(row[i])) break;
        if (i < vocab || (best != id1 && !(l1 == l2 && best == id2))) {
            printf("position %ld: argmax %ld, golden %ld\n", pos, best, id1);
            bad++;
        }
        pos++;
    }
    if (n != 0 || fscanf(g, "%ld", &p) == 1) { fprintf(stderr, "top1: the files hold different numbers of positions\n"); return 1; }
    printf("argmax %s at %ld of %ld positions\n", bad ? "differs" : "agrees", bad ? bad : pos, pos);
    free(row);
    return bad || pos == 0 ? 1 : 0;
}
