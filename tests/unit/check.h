/*
 * check: the unit tests' few assertion macros.
 *
 * A failed CHECK prints where and goes on; the program prints
 * "N passed, N failed" at the end and exits non-zero on any failure.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			check_passed++;                                        \
		} else {                                                       \
			check_failed++;                                        \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (a_ && b_ && strcmp(a_, b_) == 0) {                         \
			check_passed++;                                        \
		} else {                                                       \
			check_failed++;                                        \
			fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, \
				__LINE__, a_ ? a_ : "(null)",                  \
				b_ ? b_ : "(null)");                           \
		}                                                              \
	} while (0)

static inline int check_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
