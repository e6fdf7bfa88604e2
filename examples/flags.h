/* flags.h - llama.cpp's long spellings of the flags every program shares. Included by the
   examples; not part of the library. */
#ifndef LLM_EXAMPLES_FLAGS_H
#define LLM_EXAMPLES_FLAGS_H

#include <string.h>

/* A flag as the programs spell it: llama.cpp's long forms (--model, --prompt, ...) as their
   short ones, and -s as --seed. */
static const char *flag_name(const char *a) {
    static const char *const names[][2] = {
        { "--model", "-m" }, { "--prompt", "-p" }, { "--n-predict", "-n" }, { "--threads", "-t" }, { "--ctx-size", "-c" },
        { "--file", "-f" }, { "--batch-size", "-b" }, { "--system-prompt", "-sys" }, { "-s", "--seed" }, { "--help", "-h" },
    };
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(a, names[i][0])) return names[i][1];
    return a;
}

#endif
