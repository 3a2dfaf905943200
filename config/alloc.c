/*
 * alloc: allocation wrappers with failure injection (see alloc.h).
 */
#include "alloc.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Free bytes held in the arenas that make a trim worth its walk. */
#define GIVE_BACK_MIN ((size_t)16 << 20)
/* Blocks this large get their own mapping, given back when freed; free
 * space this large at the top of an arena is given back at once. */
#define MMAP_THRESHOLD ((int)1 << 20)
#define TRIM_THRESHOLD ((int)1 << 20)

static int tuned; /* atomic: alloc_tune() set the thresholds */

int alloc_tune(void)
{
#if defined(__GLIBC__)
	if (getenv("GLIBC_TUNABLES") || getenv("MALLOC_MMAP_THRESHOLD_") ||
	    getenv("MALLOC_TRIM_THRESHOLD_"))
		return 0; /* the operator's choice wins */
	int ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 &&
		 mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1;
	__atomic_store_n(&tuned, ok, __ATOMIC_RELAXED);
	return ok;
#else
	return 0;
#endif
}

/* alloc_reserve()'s steps: under MMAP_THRESHOLD with room for glibc's
 * chunk header, so that each comes from the arena */
#define RESERVE_STEP (MMAP_THRESHOLD - ((size_t)64 << 10))
#define RESERVE_STEPS 16

void alloc_reserve(size_t bytes)
{
	void *b[RESERVE_STEPS];
	int n = 0;
	if (!__atomic_load_n(&tuned, __ATOMIC_RELAXED))
		return;
	for (size_t got = 0; got < bytes && n < RESERVE_STEPS;
	     got += RESERVE_STEP)
		if (!(b[n] = malloc(RESERVE_STEP)))
			break;
		else
			n++;
	while (n) /* the newest first: each joins the top as it goes */
		free(b[--n]);
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
		malloc_trim(0);
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
