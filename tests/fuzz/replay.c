/* A main() for the fuzz targets outside libFuzzer: feeds each file named on the command line
   to LLVMFuzzerTestOneInput once. make test builds every target this way and replays the
   seed corpora and the saved crashes (tests/test_fuzz_replay.sh), in every build of the
   suite, sanitizers and platforms included. (tests/internals.c includes this file with
   REPLAY_NO_MAIN for the targets that reach internals.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Feeds each file of argv[1..] to one(). */
static int replay(int argc, char **argv, int (*one)(const uint8_t *data, size_t size)) {
    int i, n = 0;
    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t *buf = NULL;
        size_t size = 0, cap = 0, got;
        if (!f) { fprintf(stderr, "replay: cannot open %s\n", argv[i]); return 2; }
        do {
            if (cap - size < 65536) {
                uint8_t *p = (uint8_t *)realloc(buf, cap = cap * 2 + 65536);
                if (!p) { fprintf(stderr, "replay: out of memory\n"); return 2; }
                buf = p;
            }
            got = fread(buf + size, 1, cap - size, f);
            size += got;
        } while (got > 0);
        fclose(f);
        one(buf, size);
        free(buf);
        n++;
    }
    printf("replayed %d inputs\n", n);
    return 0;
}

#ifndef REPLAY_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int main(int argc, char **argv) { return replay(argc, argv, LLVMFuzzerTestOneInput); }
#endif
