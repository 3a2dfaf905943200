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

/* Atomic: tests CHECK from the threads they start, too. */
#define CHECK_COUNT(n) __atomic_fetch_add(&(n), 1, __ATOMIC_RELAXED)

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			CHECK_COUNT(check_passed);                             \
		} else {                                                       \
			CHECK_COUNT(check_failed);                             \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (a_ && b_ && strcmp(a_, b_) == 0) {                         \
			CHECK_COUNT(check_passed);                             \
		} else {                                                       \
			CHECK_COUNT(check_failed);                             \
			fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, \
				__LINE__, a_ ? a_ : "(null)",                  \
				b_ ? b_ : "(null)");                           \
		}                                                              \
	} while (0)

static inline int check_done(const char *name)
{
	int passed = __atomic_load_n(&check_passed, __ATOMIC_RELAXED);
	int failed = __atomic_load_n(&check_failed, __ATOMIC_RELAXED);
	printf("%s: %d passed, %d failed\n", name, passed, failed);
	return failed ? 1 : 0;
}

#endif
