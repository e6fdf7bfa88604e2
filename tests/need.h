/* need.h - for C tests, what tests/need.sh is for the scripts: a test whose data or tool is
   absent returns skip_test(...) from main, which prints "SKIP TEST: needs WHAT" and exits 0
   under make test, and fails under make test-all (LLM_TEST_ALL=1). */
#ifndef LLM_TESTS_NEED_H
#define LLM_TESTS_NEED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int skip_test(const char *test, const char *what) {
    const char *all = getenv("LLM_TEST_ALL");
    if (all && !strcmp(all, "1")) { printf("FAIL %s: needs %s, which is absent\n", test, what); return 1; }
    printf("SKIP %s: needs %s\n", test, what);
    return 0;
}

#endif
