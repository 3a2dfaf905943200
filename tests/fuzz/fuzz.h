/*
 * fuzz: what every fuzz target shares.
 *
 * A target is one file defining LLVMFuzzerTestOneInput(). It is built
 * twice: with clang's libFuzzer for `make fuzz`, and with replay.c's
 * main() for `make test`, which runs it once on every file of the
 * committed corpus. Either way a broken invariant must stop the run, so
 * FUZZ_CHECK prints what failed and aborts, which libFuzzer reports as a
 * crash and saves the input.
 */
#ifndef TESTS_FUZZ_H
#define TESTS_FUZZ_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                 \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", \
				__FILE__, __LINE__, #cond);              \
			abort();                                         \
		}                                                        \
	} while (0)

/* The next piece size from the seed *s (byte 0 of a target's input,
 * say): 1 to 64 bytes, or one time in two big (as much as given). The
 * targets that feed a stream in pieces and read it into windows use it,
 * so an input replays the same cuts. */
static inline size_t fuzz_next_size(uint32_t *s, size_t big)
{
	*s = *s * 1103515245u + 12345u;
	unsigned v = (*s >> 16) & 0x7f;
	return v < 64 ? v + 1 : big;
}

/* The input as a NUL-terminated string (for parsers that take one);
 * free() it. Inputs with an embedded NUL are cut there, as a C caller
 * would see them. NULL when out of memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* True when the input holds the bytes of s. */
static inline bool fuzz_has(const uint8_t *data, size_t size, const char *s)
{
	return memmem(data, size, s, strlen(s)) != NULL;
}

#endif
