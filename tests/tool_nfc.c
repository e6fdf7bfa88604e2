/* nfc: checks llm.h's NFC against Unicode's NormalizationTest.txt.

   tool_nfc NormalizationTest.txt DerivedAge.txt

   For every test line c1;c2;c3;c4;c5: c2 == NFC(c1) == NFC(c2) == NFC(c3) and
   c4 == NFC(c4) == NFC(c5). Also every code point not listed in part 1 is its own NFC.
   llm.h's NFC is HF tokenizers', with Unicode 9.0's data (tools/gen_unicode.c): of the lines
   with a character assigned later only those with nothing to normalize are checked
   (tests/data/tokenizers/bl_qwen2 holds HF's ids of texts where the versions differ).
   Prints the failures (the first 10) and a count; exits 1 on any failure. */
#define LLM_IMPLEMENTATION
#include "../llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t parse_field(const char *s, uint8_t *out) {
    size_t n = 0;
    char *end;
    for (;;) {
        unsigned long cp;
        while (*s == ' ') s++;
        cp = strtoul(s, &end, 16);
        if (end == s) break;
        n += llm__utf8_put(out + n, (uint32_t)cp);
        s = end;
    }
    return n;
}

static int failures;
static unsigned char later[0x110000]; /* assigned after Unicode 9.0 */

static void read_age(FILE *f) {
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi, c;
        int major = 0, minor = 0;
        char *e;
        if (line[0] == '#' || line[0] == '\n') continue;
        lo = hi = strtoul(line, &e, 16);
        if (e[0] == '.' && e[1] == '.') hi = strtoul(e + 2, &e, 16);
        if (sscanf(e, " ; %d.%d", &major, &minor) == 2 && major > 9)
            for (c = lo; c <= hi && c < 0x110000; c++) later[c] = 1;
    }
}

/* Whether a field of code points has one assigned after Unicode 9.0. */
static int has_later(const char *s) {
    char *end;
    for (;;) {
        unsigned long cp;
        while (*s == ' ') s++;
        cp = strtoul(s, &end, 16);
        if (end == s) return 0;
        if (cp < 0x110000 && later[cp]) return 1;
        s = end;
    }
}

static void nfc_check(llm__tokenize_state *k, const uint8_t *want, size_t want_n, const uint8_t *in, size_t in_n, long line) {
    size_t n;
    const uint8_t *got = llm__nfc(k, in, in_n, &n);
    if (n == want_n && memcmp(got, want, n) == 0) return;
    if (failures++ < 10) {
        size_t i;
        printf("line %ld: NFC(", line);
        for (i = 0; i < in_n; i++) printf("%02X", in[i]);
        printf(") = ");
        for (i = 0; i < n; i++) printf("%02X", got[i]);
        printf(", expected ");
        for (i = 0; i < want_n; i++) printf("%02X", want[i]);
        printf("\n");
    }
}

int main(int argc, char **argv) {
    FILE *f, *age;
    char line[4096];
    static uint8_t c[5][1024];
    static unsigned char listed[0x110000];
    size_t n[5];
    long lineno = 0, tests = 0, n_later = 0, later_same = 0;
    int part = 0, i;
    uint32_t cp;
    llm__tokenize_state k;
    if (argc != 3 || !(f = fopen(argv[1], "r")) || !(age = fopen(argv[2], "r"))) {
        fprintf(stderr, "usage: tool_nfc NormalizationTest.txt DerivedAge.txt\n");
        return 2;
    }
    read_age(age);
    fclose(age);
    memset(&k, 0, sizeof k);
    while (fgets(line, sizeof line, f)) {
        char *field[5], *p = line;
        lineno++;
        if (line[0] == '@') { part = atoi(line + 5); continue; }
        if (line[0] == '#' || line[0] == '\n') continue;
        for (i = 0; i < 5; i++) {
            field[i] = p;
            p = strchr(p, ';');
            if (!p) break;
            *p++ = 0;
        }
        if (i < 5) continue;
        for (i = 0; i < 5; i++) n[i] = parse_field(field[i], c[i]);
        if (part == 1) listed[strtoul(field[0], NULL, 16)] = 1;
        if (has_later(field[0]) || has_later(field[1]) || has_later(field[2])) {
            n_later++;
            if (n[0] == n[1] && !memcmp(c[0], c[1], n[0])) { later_same++; nfc_check(&k, c[0], n[0], c[0], n[0], lineno); }
            continue;
        }
        nfc_check(&k, c[1], n[1], c[0], n[0], lineno);
        nfc_check(&k, c[1], n[1], c[1], n[1], lineno);
        nfc_check(&k, c[1], n[1], c[2], n[2], lineno);
        nfc_check(&k, c[3], n[3], c[3], n[3], lineno);
        nfc_check(&k, c[3], n[3], c[4], n[4], lineno);
        tests++;
    }
    fclose(f);
    for (cp = 0; cp < 0x110000; cp++) {
        size_t len;
        if (listed[cp] || (cp >= 0xD800 && cp < 0xE000)) continue;
        len = llm__utf8_put(c[0], cp);
        nfc_check(&k, c[0], len, c[0], len, 0);
    }
    llm__tk_free(&k);
    printf("NFC: %ld test lines and every other code point, %d failures; of %ld lines with characters after Unicode 9.0, the %ld with nothing to normalize\n",
           tests, failures, n_later, later_same);
    return failures != 0;
}
