/* need.h - for C tests, what tests/need.sh is for the scripts: a test whose data or tool is
   absent returns skip_test(...) from main, which prints "SKIP TEST: needs WHAT" and exits 0
   under make test, and fails under make test-all (LLM_TEST_ALL=1); one that needs a CPU
   feature the machine lacks returns skip_cpu(...), "SKIP TEST: the CPU lacks FEATURE". */
#ifndef LLM_TESTS_NEED_H
#define LLM_TESTS_NEED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cpu: what is absent is a CPU feature, which no package installs, so the test says SKIP
   (naming it) under make test-all too. */
static int skip_for(const char *test, const char *what, int cpu) {
    const char *all = getenv("LLM_TEST_ALL");
    if (cpu) { printf("SKIP %s: the CPU lacks %s\n", test, what); return 0; }
    if (all && !strcmp(all, "1")) { printf("FAIL %s: needs %s, which is absent\n", test, what); return 1; }
    printf("SKIP %s: needs %s\n", test, what);
    return 0;
}
#define skip_test(test, what) skip_for(test, what, 0)
#define skip_cpu(test, feature) skip_for(test, feature, 1)

#endif
