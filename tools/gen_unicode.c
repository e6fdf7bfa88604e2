/* gen_unicode: prints the Unicode tables at the end of llm.h.

   cc -O2 -o build/gen_unicode tools/gen_unicode.c && build/gen_unicode [DIR [DELTA]]

   DIR (default /usr/share/unicode, Debian's unicode-data package) must hold UnicodeData.txt,
   PropList.txt, DerivedCoreProperties.txt, DerivedNormalizationProps.txt and DerivedAge.txt.
   DELTA (tools/ucd16-delta.txt) gives the general category and Alphabetic of the code points
   where a newer Unicode differs from DIR's: HF tokenizers' regexes use Unicode 16.0's, Debian
   holds 15.0's. The output is the text between the "unicode tables" banner of llm.h and the
   line "end of generated unicode tables"; tests/test_unicode.sh checks that the two agree.

   Tables (every range table lists the start of each run; a run ends where the next starts):
     llm__uprop_ranges  start << 9 | general category << 4 | flags: 1 \p{L}, 2 \p{N}, 4 \w
                        (Alphabetic, marks, Nd, Pc, Join_Control, as Rust's regex), 8 White_Space
                        (\s of Oniguruma and Rust); the category is its index in GC_NAMES
     llm__ccc_ranges    start << 8 | canonical combining class
     llm__nfcqc_ranges  start << 2 | NFC_Quick_Check (0 yes, 1 maybe, 2 no)
     llm__decomp        canonical decompositions {code point, first, second or 0}, by code point
     llm__comp          primary composites {first, second, composite}, by (first, second)
   Hangul syllables are left to the algorithm in llm.h.
   The normalization tables (ccc, NFC_Quick_Check, decompositions, composites) hold Unicode
   9.0's data, the data of HF tokenizers' NFC (its unicode-normalization-alignments crate): a
   character assigned later has combining class 0, no decomposition and quick check yes, so a
   mark added since is not reordered and U+11938 is not composed, as there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define NCP 0x110000

/* The general categories in the order of llm__gc_names in llm.h; Cn (unassigned) is 0. */
#define GC_NAMES "CnLuLlLtLmLoMnMcMeNdNlNoPcPdPsPePiPfPoSmScSkSoZsZlZpCcCfCsCo"

static uint16_t props[NCP];
static uint8_t ccc[NCP], qc[NCP], excluded[NCP], after_nfc_version[NCP];
static uint32_t dec[NCP][2];
static char version[64] = "unknown", delta_version[48] = "";

static FILE *open_data(const char *dir, const char *name) {
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "r");
    if (!f) { fprintf(stderr, "gen_unicode: cannot open %s\n", path); exit(1); }
    return f;
}

static int is_cat(const char *gc, const char *set) {
    return strstr(set, gc) != NULL && strlen(gc) == 2;
}

/* The flags a general category gives (the \w of letters also comes from Alphabetic) and the
   category's index in GC_NAMES. */
static uint16_t category_flags(const char *name) {
    uint16_t flags = 0;
    const char *gc;
    if (is_cat(name, "Lu Ll Lt Lm Lo")) flags |= 1 | 4;
    if (is_cat(name, "Nd Nl No")) flags |= 2;
    if (is_cat(name, "Mn Mc Me Nd Pc")) flags |= 4;
    for (gc = GC_NAMES; *gc && (gc[0] != name[0] || gc[1] != name[1] || name[2]); gc += 2) {}
    if (*gc) flags |= (uint16_t)((gc - GC_NAMES) / 2) << 4;
    return flags;
}

/* UnicodeData.txt: general category, combining class, decomposition. "First>"/"Last>"
   pairs give ranges. */
static void read_unicode_data(const char *dir) {
    FILE *f = open_data(dir, "UnicodeData.txt");
    char line[1024];
    uint32_t range_start = 0;
    while (fgets(line, sizeof line, f)) {
        char *field[15];
        int n = 0;
        char *p = line;
        uint32_t cp, lo, c;
        uint16_t flags;
        field[n++] = p;
        while (*p && n < 15) { if (*p == ';') { *p = 0; field[n++] = p + 1; } p++; }
        if (n < 6) continue;
        cp = (uint32_t)strtoul(field[0], NULL, 16);
        flags = category_flags(field[2]);
        lo = cp;
        if (strstr(field[1], ", First>")) { range_start = cp; continue; }
        if (strstr(field[1], ", Last>")) lo = range_start;
        for (c = lo; c <= cp; c++) { props[c] |= flags; ccc[c] = (uint8_t)atoi(field[3]); }
        if (field[5][0] && field[5][0] != '<') { /* canonical: no <tag> */
            char *e;
            dec[cp][0] = (uint32_t)strtoul(field[5], &e, 16);
            dec[cp][1] = (uint32_t)strtoul(e, NULL, 16);
        }
    }
    fclose(f);
}

/* Lines "XXXX[..YYYY] ; Property[; value]"; calls set for each code point in the range. */
static void read_property(const char *dir, const char *file, const char *prop, const char *value,
                          void (*set)(uint32_t cp, int v), int v) {
    FILE *f = open_data(dir, file);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char name[128] = "", val[64] = "";
        uint32_t lo, hi, c;
        char *p = line, *e;
        if (strncmp(line, "# ", 2) == 0 && strstr(line, ".txt") && version[0] == 'u') {
            const char *dash = strrchr(line, '-'), *dot = strstr(line, ".txt");
            if (dash && dot > dash && dot - dash < 60) { memcpy(version, dash + 1, (size_t)(dot - dash - 1)); version[dot - dash - 1] = 0; }
        }
        if (*p == '#' || *p == '\n') continue;
        lo = hi = (uint32_t)strtoul(p, &e, 16);
        if (e[0] == '.' && e[1] == '.') hi = (uint32_t)strtoul(e + 2, &e, 16);
        if (sscanf(e, " ; %127[A-Za-z_] ; %63[A-Za-z_]", name, val) < 1) continue;
        if (strcmp(name, prop) != 0 || (value && strcmp(val, value) != 0)) continue;
        for (c = lo; c <= hi; c++) set(c, v);
    }
    fclose(f);
}

/* The delta file: lines "XXXX[..YYYY] ; Gc[ ; Alphabetic]" replace those code points' category
   and Alphabetic (White_Space and Join_Control are kept); "# Unicode V: ..." names the version. */
static void read_delta(const char *file) {
    FILE *f = fopen(file, "r");
    char line[1024];
    if (!f) { fprintf(stderr, "gen_unicode: cannot open %s\n", file); exit(1); }
    while (fgets(line, sizeof line, f)) {
        char gc[8] = "", alpha[32] = "";
        uint32_t lo, hi, c;
        char *e;
        if (sscanf(line, "# Unicode %40[0-9.]", gc) == 1) { snprintf(delta_version, sizeof delta_version, "%s", gc); continue; }
        if (line[0] == '#' || line[0] == '\n') continue;
        lo = hi = (uint32_t)strtoul(line, &e, 16);
        if (e[0] == '.' && e[1] == '.') hi = (uint32_t)strtoul(e + 2, &e, 16);
        if (sscanf(e, " ; %7[A-Za-z] ; %31[A-Za-z]", gc, alpha) < 1 || hi >= NCP) { fprintf(stderr, "gen_unicode: bad line in %s: %s", file, line); exit(1); }
        for (c = lo; c <= hi; c++) props[c] = (uint16_t)((props[c] & 8) | category_flags(gc) | (strcmp(alpha, "Alphabetic") == 0 ? 4 : 0));
    }
    fclose(f);
}

/* DerivedAge.txt: marks the code points assigned after Unicode 9.0. */
static void read_age(const char *dir) {
    FILE *f = open_data(dir, "DerivedAge.txt");
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        uint32_t lo, hi, c;
        int major = 0, minor = 0;
        char *e;
        if (line[0] == '#' || line[0] == '\n') continue;
        lo = hi = (uint32_t)strtoul(line, &e, 16);
        if (e[0] == '.' && e[1] == '.') hi = (uint32_t)strtoul(e + 2, &e, 16);
        if (sscanf(e, " ; %d.%d", &major, &minor) != 2) continue;
        if (major > 9) for (c = lo; c <= hi && c < NCP; c++) after_nfc_version[c] = 1;
    }
    fclose(f);
}

static void set_prop(uint32_t cp, int v) { props[cp] |= (uint16_t)v; }
static void set_qc(uint32_t cp, int v) { qc[cp] = (uint8_t)v; }
static void set_excluded(uint32_t cp, int v) { excluded[cp] = (uint8_t)v; }

static int col;
static void emit(const char *s) {
    size_t n = strlen(s);
    if (col + (int)n > 100) { printf("\n"); col = 0; }
    if (col == 0) { printf("   "); col = 3; }
    printf(" %s", s);
    col += (int)n + 1;
}

static void end_table(void) { printf("\n};\n"); col = 0; }

static void range_table(const char *name, const char *what, const uint16_t *v, int shift) {
    uint32_t c, n = 0;
    char buf[32];
    for (c = 0; c < NCP; c++) if (c == 0 || v[c] != v[c - 1]) n++;
    printf("/* %s */\nstatic const uint32_t %s[%u] = {\n", what, name, n);
    for (c = 0; c < NCP; c++)
        if (c == 0 || v[c] != v[c - 1]) { snprintf(buf, sizeof buf, "0x%X,", c << shift | v[c]); emit(buf); }
    end_table();
}

static int cmp_pair(const void *a, const void *b) {
    const uint32_t *x = (const uint32_t *)a, *y = (const uint32_t *)b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
    return 0;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/usr/share/unicode";
    static uint32_t comp[NCP / 16][3];
    static uint16_t wide[NCP];
    uint32_t c, n_dec = 0, n_comp = 0, i;
    char buf[64];
    read_unicode_data(dir);
    read_property(dir, "PropList.txt", "White_Space", NULL, set_prop, 8);
    read_property(dir, "PropList.txt", "Join_Control", NULL, set_prop, 4);
    read_property(dir, "DerivedCoreProperties.txt", "Alphabetic", NULL, set_prop, 4);
    read_property(dir, "DerivedNormalizationProps.txt", "NFC_QC", "M", set_qc, 1);
    read_property(dir, "DerivedNormalizationProps.txt", "NFC_QC", "N", set_qc, 2);
    read_property(dir, "DerivedNormalizationProps.txt", "Full_Composition_Exclusion", NULL, set_excluded, 1);
    read_age(dir);
    if (argc > 2) read_delta(argv[2]);
    for (c = 0; c < NCP; c++)
        if (after_nfc_version[c]) { ccc[c] = 0; qc[c] = 0; dec[c][0] = dec[c][1] = 0; }
    if (delta_version[0])
        printf("/* Unicode %s with %s's categories (the normalization tables: 9.0). Regenerate with tools/gen_unicode.c; do not edit by hand. */\n",
               version, delta_version);
    else printf("/* Unicode %s (the normalization tables: 9.0). Regenerate with tools/gen_unicode.c; do not edit by hand. */\n", version);
    range_table("llm__uprop_ranges", "start << 9 | general category << 4 | 1 letter, 2 number, 4 word, 8 white space", props, 9);
    for (c = 0; c < NCP; c++) wide[c] = ccc[c];
    range_table("llm__ccc_ranges", "start << 8 | canonical combining class", wide, 8);
    for (c = 0; c < NCP; c++) wide[c] = qc[c];
    range_table("llm__nfcqc_ranges", "start << 2 | NFC_Quick_Check: 0 yes, 1 maybe, 2 no", wide, 2);
    for (c = 0; c < NCP; c++) if (dec[c][0]) n_dec++;
    printf("/* canonical decompositions: code point, first, second (0: a singleton) */\n");
    printf("static const uint32_t llm__decomp[%u][3] = {\n", n_dec);
    for (c = 0; c < NCP; c++) {
        if (!dec[c][0]) continue;
        snprintf(buf, sizeof buf, "{0x%X,0x%X,0x%X},", c, dec[c][0], dec[c][1]);
        emit(buf);
        /* A primary composite: a pair decomposition not excluded from composition. */
        if (dec[c][1] && !excluded[c]) {
            comp[n_comp][0] = dec[c][0]; comp[n_comp][1] = dec[c][1]; comp[n_comp][2] = c;
            n_comp++;
        }
    }
    end_table();
    qsort(comp, n_comp, sizeof comp[0], cmp_pair);
    printf("/* primary composites: first, second, composite */\n");
    printf("static const uint32_t llm__comp[%u][3] = {\n", n_comp);
    for (i = 0; i < n_comp; i++) {
        snprintf(buf, sizeof buf, "{0x%X,0x%X,0x%X},", comp[i][0], comp[i][1], comp[i][2]);
        emit(buf);
    }
    end_table();
    printf("/* end of generated unicode tables */\n");
    return 0;
}
