/*
 * alloc: allocation wrappers with failure injection (see alloc.h).
 */
#include "alloc.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Free bytes held in the arenas that make a trim worth its walk. */
#define GIVE_BACK_MIN ((size_t)16 << 20)
/* Free space this large at the top of an arena is given back at once
 * (and blocks of ALLOC_MMAP_THRESHOLD get their own mapping). */
#define TRIM_THRESHOLD ((int)1 << 20)

static int tuned; /* atomic: alloc_tune() set the thresholds */

int alloc_tune(void)
{
#if defined(__GLIBC__)
	if (getenv("GLIBC_TUNABLES") || getenv("MALLOC_MMAP_THRESHOLD_") ||
	    getenv("MALLOC_TRIM_THRESHOLD_"))
		return 0; /* the operator's choice wins */
	int ok = mallopt(M_MMAP_THRESHOLD, (int)ALLOC_MMAP_THRESHOLD) == 1 &&
		 mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1;
	__atomic_store_n(&tuned, ok, __ATOMIC_RELAXED);
	return ok;
#else
	return 0;
#endif
}

/* alloc_expect()'s step: under ALLOC_MMAP_THRESHOLD, and with what an arena's
 * top may hold already still under TRIM_THRESHOLD, so that freeing it
 * neither unmaps it nor trims it */
#define EXPECT_STEP ((size_t)512 << 10)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static __thread size_t expect_credit;
static int populate_off; /* atomic: the kernel refused it once */

static void expect_step(void)
{
	char *b = malloc(EXPECT_STEP);
	if (!b)
		return;
	uintptr_t page = 4096, from = ((uintptr_t)b + page - 1) & ~(page - 1),
		  to = ((uintptr_t)b + EXPECT_STEP) & ~(page - 1);
	if (!__atomic_load_n(&populate_off, __ATOMIC_RELAXED) && to > from &&
	    madvise((void *)from, to - from, MADV_POPULATE_WRITE) &&
	    errno == EINVAL)
		__atomic_store_n(&populate_off, 1, __ATOMIC_RELAXED);
	free(b);
}

void alloc_expect(size_t bytes)
{
	if (!__atomic_load_n(&tuned, __ATOMIC_RELAXED))
		return;
	if (expect_credit < bytes) {
		expect_step();
		/* a quarter kept for what the announced sizes leave out
		 * (an object's header and parsed fields): the next step
		 * comes before the arena has to open by itself */
		expect_credit += EXPECT_STEP / 4 * 3;
	}
	expect_credit = expect_credit > bytes ? expect_credit - bytes : 0;
}

/* One anchor a thread (alloc_anchor()); threads past ANCHORS go without. */
#define ANCHORS 256
#define ANCHOR_SIZE \
	((size_t)64 << 10)     /* glibc's FASTBIN_CONSOLIDATION_THRESHOLD */
static void *anchors[ANCHORS]; /* atomic */
static int anchors_used;       /* atomic */

void alloc_anchor(void)
{
	static __thread int slot = -1;
	if (slot < 0) {
		int n = __atomic_fetch_add(&anchors_used, 1, __ATOMIC_RELAXED);
		if (n >= ANCHORS) {
			slot = ANCHORS; /* no room: never again */
			return;
		}
		slot = n;
	}
	if (slot >= ANCHORS ||
	    __atomic_load_n(&anchors[slot], __ATOMIC_RELAXED))
		return;
	void *p = malloc(ANCHOR_SIZE); /* untouched: no RSS but its header */
	if (p)
		__atomic_store_n(&anchors[slot], p, __ATOMIC_RELEASE);
}

size_t alloc_give_back(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct mallinfo2 mi = mallinfo2();
	/* fordblks: free bytes in the arenas; uordblks: in use */
	if (mi.fordblks >= GIVE_BACK_MIN && mi.fordblks >= mi.uordblks / 8) {
		alloc_trim();
		/* each anchor's free trims its own arena's top */
		int n = __atomic_load_n(&anchors_used, __ATOMIC_RELAXED);
		for (int i = 0; i < n && i < ANCHORS; i++)
			free(__atomic_exchange_n(&anchors[i], NULL,
						 __ATOMIC_ACQ_REL));
	}
	return mi.fordblks;
#else
	return 0;
#endif
}

/* A sanitizer's allocator stands in for glibc's (GCC names them in
 * __SANITIZE_*__, clang in __has_feature). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define SANITIZER_MALLOC 1
#endif
#endif

void alloc_trim(void)
{
#ifndef SANITIZER_MALLOC
	malloc_trim(0);
#endif
}

static atomic_long countdown; /* 0: off; else fail when it reaches 1 */
static atomic_long failures;

static int should_fail(void)
{
	long c = atomic_load_explicit(&countdown, memory_order_relaxed);
	if (c == 0)
		return 0;
	if (atomic_fetch_sub(&countdown, 1) == 1) {
		atomic_fetch_add(&failures, 1);
		return 1;
	}
	return 0;
}

void alloc_fail_after(long n)
{
	atomic_store(&countdown, n);
	atomic_store(&failures, 0);
}

long alloc_failures(void)
{
	return atomic_load(&failures);
}

void *xmalloc(size_t n)
{
	return should_fail() ? NULL : malloc(n ? n : 1);
}

void *xcalloc(size_t n, size_t size)
{
	return should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1);
}

void *xrealloc(void *p, size_t n)
{
	return should_fail() ? NULL : realloc(p, n ? n : 1);
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}
