/* check.h - the checks of the C tests. check(ok, fmt, ...) prints one line per check, "ok   ..."
   or "FAIL ..."; CHECK(cond, fmt, ...) prints only a failure, "FAIL file:line: ...". Both
   count failures in check_failures, and main ends with return check_summary("what passed"),
   which prints that line, or "N failures" and returns 1. */
#ifndef LLM_TESTS_CHECK_H
#define LLM_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int check_failures;

static inline void check(int ok, const char *fmt, ...) {
    va_list ap;
    printf("%s ", ok ? "ok  " : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!ok) check_failures++;
}

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); check_failures++; } } while (0)

static inline int check_summary(const char *passed) {
    if (check_failures) { printf("%d failure%s\n", check_failures, check_failures == 1 ? "" : "s"); return 1; }
    printf("%s\n", passed);
    return 0;
}

#endif
