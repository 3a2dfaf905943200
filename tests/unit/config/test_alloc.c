/*
 * test_alloc: the allocation door: zero-size requests, the strdup
 * helpers, failure injection counting down to exactly the Nth call, and
 * a thread's arena giving its free memory back once tuned, and
 * alloc_expect() opening a thread's arena, in memory, a step at a time.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "config/alloc.h"
#include "check.h"

static void test_plain(void)
{
	void *p = xmalloc(0); /* never NULL for size 0 */
	CHECK(p != NULL);
	free(p);
	int *z = xcalloc(4, sizeof(int));
	CHECK(z && z[0] == 0 && z[3] == 0);
	z = xrealloc(z, 100 * sizeof(int));
	CHECK(z != NULL);
	free(z);
	char *s = xstrdup("hello");
	CHECK_STR(s, "hello");
	free(s);
	s = xstrndup("hello", 3);
	CHECK_STR(s, "hel");
	free(s);
	s = xstrndup("a\0b", 3); /* n bytes, NULs and all */
	CHECK(s && s[0] == 'a' && s[1] == '\0' && s[2] == 'b' && s[3] == '\0');
	free(s);
	alloc_give_back(); /* harmless whenever called */
}

static void test_injection(void)
{
	alloc_fail_after(3);
	void *a = xmalloc(8), *b = xstrdup("x"), *c = xcalloc(1, 8);
	void *d = xmalloc(8);
	CHECK(a && b && !c && d); /* exactly the third */
	CHECK(alloc_failures() == 1);
	free(a);
	free(b);
	free(d);
	a = xmalloc(8); /* once only */
	CHECK(a != NULL && alloc_failures() == 1);
	free(a);

	alloc_fail_after(1);
	void *keep = malloc(4);
	CHECK(xrealloc(keep, 64) == NULL); /* keep is still ours */
	free(keep);
	CHECK(alloc_failures() == 1);
	alloc_fail_after(0); /* off, and counts reset */
	CHECK(alloc_failures() == 0);
	a = xmalloc(1);
	CHECK(a != NULL && alloc_failures() == 0);
	free(a);
}

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && \
	!defined(__SANITIZE_THREAD__)
/* In a thread of its own (so in an arena of its own), take and free an
 * 8 MiB buffer four times, as a reflector does with upstream pages.
 * Returns how much the arenas grew. Left alone, glibc would by now serve
 * such a buffer from the thread's arena and keep it there: main() has
 * freed a larger block first, which raised its thresholds to that size. */
static void *churn(void *out)
{
	size_t before = mallinfo2().arena;
	for (int k = 0; k < 4; k++) {
		char *b = xmalloc((size_t)8 << 20);
		if (b)
			memset(b, 1, (size_t)8 << 20);
		free(b);
	}
	size_t after = mallinfo2().arena;
	*(size_t *)out = after > before ? after - before : 0;
	return NULL;
}

static void test_tune(void)
{
	CHECK(alloc_tune() == 1);
	char *big = xmalloc((size_t)24 << 20);
	CHECK(big != NULL);
	if (big)
		memset(big, 1, 4096);
	free(big);
	size_t kept = (size_t)-1;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, churn, &kept) == 0);
	pthread_join(t, NULL);
	/* the buffer had a mapping of its own, gone when freed */
	CHECK(kept < ((size_t)1 << 20));
	/* an operator's own setting wins */
	setenv("MALLOC_TRIM_THRESHOLD_", "4194304", 1);
	CHECK(alloc_tune() == 0);
	unsetenv("MALLOC_TRIM_THRESHOLD_");
}

/* Bytes readable and writable from p to the end of its mapping, from
 * /proc/self/maps; 0 when p is in none. */
static size_t open_after(const void *p)
{
	uintptr_t a = (uintptr_t)p, lo, hi;
	char perm[8], line[512];
	size_t n = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 &&
		    a >= lo && a < hi && !strncmp(perm, "rw", 2))
			n = hi - a;
	if (f)
		fclose(f);
	return n;
}

/* Whether the kernel populates with MADV_POPULATE_WRITE (Linux 5.14). */
static bool can_populate(void)
{
	size_t n = 1 << 16;
	void *m = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok = m != MAP_FAILED && !madvise(m, n, 23 /* POPULATE_WRITE */);
	if (m != MAP_FAILED)
		munmap(m, n);
	return ok;
}

/* In a thread of its own, 1,000 blocks of 5 KiB, each announced with
 * alloc_expect() or not: how many times the arena had to open further,
 * and whether the 128 KiB after the first block were in memory before
 * anything touched them. */
struct expect_run {
	bool announce;
	int opened;
	bool resident;
};

static void *expect(void *arg)
{
	struct expect_run *r = arg;
	static void *blocks[1000];
	char *p = xmalloc(64);
	size_t open = open_after(p);
	for (int i = 0; i < 1000; i++) {
		if (r->announce)
			alloc_expect(5 << 10);
		blocks[i] = xmalloc(5 << 10);
		if (!i) {
			uintptr_t pg = 4096;
			char *from = (char *)(((uintptr_t)blocks[0] + 5 * pg) &
					      ~(pg - 1));
			unsigned char in[32];
			r->resident = !mincore(from, sizeof(in) * pg, in);
			for (size_t k = 0; k < sizeof(in); k++)
				r->resident = r->resident && (in[k] & 1);
		}
		size_t now = open_after(p);
		r->opened += now != open;
		open = now;
	}
	for (int i = 0; i < 1000; i++)
		free(blocks[i]);
	free(p);
	return NULL;
}

static void test_expect(void)
{
	CHECK(alloc_tune() == 1); /* the thresholds it counts on */
	struct expect_run plain = { .announce = false },
			  told = { .announce = true };
	pthread_t t;
	CHECK(pthread_create(&t, NULL, expect, &plain) == 0);
	pthread_join(t, NULL);
	CHECK(pthread_create(&t, NULL, expect, &told) == 0);
	pthread_join(t, NULL);
	/* glibc opens a thread's arena by what each block lacks */
	CHECK(plain.opened > 500);
	/* announced: in 512 KiB steps, 5 MB in about ten */
	CHECK(told.opened >= 1 && told.opened <= 20);
	CHECK(!plain.resident);
	if (can_populate())
		CHECK(told.resident);
}
#else
static void test_tune(void)
{
	/* sanitizers bring their own allocator */
}

static void test_expect(void)
{
}
#endif

int main(void)
{
	test_plain();
	test_injection();
	test_tune();
	test_expect();
	return check_done("alloc");
}
