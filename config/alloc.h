/*
 * alloc: the one door every allocation of the project goes through.
 *
 * In normal builds these are malloc and friends. Tests set
 * alloc_fail_after(N) to make the Nth allocation from now fail, the way
 * curl's torture mode and SQLite's malloc tests do, and then check that
 * the code under test returns -ENOMEM cleanly and leaks nothing.
 */
#ifndef CONFIG_ALLOC_H
#define CONFIG_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/*
 * Give freed memory back to the system when the allocator holds much of
 * it: after a thousand watchers leave, glibc keeps their buffers' pages
 * in its arenas for good unless asked. Cheap when there is nothing to
 * give; call it now and then (the proxy's ticker does, every 10 s).
 * Returns the bytes that were free in the arenas before.
 */
size_t alloc_give_back(void);

/*
 * malloc_trim(0): the free pages of every arena back to the system, now
 * (after a full LIST, whose page buffers and scratch were freed in
 * several threads' arenas). Any thread. Nothing under a sanitizer, whose
 * allocator replaces glibc's: there glibc's malloc was never set up, and
 * two threads trimming at once race in its first-use setup.
 */
void alloc_trim(void);

/*
 * Let alloc_give_back() reach the top of this thread's arena too. glibc
 * shrinks a thread arena's free top only when a block of 64 KiB or more
 * is freed into that arena, and malloc_trim() never does: when small
 * blocks (16 KiB connection pools, watches) are what a thousand leaving
 * watchers free, megabytes stay at the top for good. This keeps one
 * untouched 64 KiB block from this thread's arena, which the next
 * give-back frees from whichever thread runs it, so that arena trims its
 * top. Cheap: a thread-local test, a malloc once per give-back. Call it
 * from threads that free much (libmicrohttpd's, the fan-out workers).
 */
void alloc_anchor(void);

/* Blocks this large and larger get a mapping of their own once
 * alloc_tune() has set the thresholds: fresh pages on every allocation,
 * faulted in as they are touched, unmapped when freed. A buffer made
 * again and again (a response's send block) stays under it. */
#define ALLOC_MMAP_THRESHOLD ((size_t)1 << 20)

/*
 * Fix glibc's thresholds for returning memory, once, before any thread
 * starts. Left alone, glibc raises them after each large block is freed
 * (to the size of the largest: an upstream LIST page, megabytes), and a
 * thread arena then keeps that much free space at its top for good:
 * malloc_trim() does not reach the top of a thread's arena. Skipped when
 * the operator tuned malloc through its environment variables. Returns
 * 1 when the thresholds were set.
 */
int alloc_tune(void);

/*
 * Say that this thread is about to make about bytes more of small
 * blocks (a LIST's objects, each announced as it is made). Two costs of
 * fresh memory are paid in 512 KiB steps instead of a page or a block at
 * a time:
 * - glibc grows a thread's arena by exactly what each allocation lacks,
 *   with an mprotect() each time (a write lock on the process's memory
 *   map, which stalls every other thread's page faults): ten thousand
 *   objects of a LIST were ten thousand mprotect() calls;
 * - each fresh 4 KiB page faults on its first touch; one
 *   MADV_POPULATE_WRITE for the step costs about a third less (Linux
 *   5.14 and later; without it, only the first).
 * A step allocates a block under the mmap threshold, populates it and
 * frees it: the arena's top is then open and in memory, and stays so,
 * being under the trim threshold, until the blocks to come use it. Any
 * thread; a no-op when the thresholds are not alloc_tune()'s.
 */
void alloc_expect(size_t bytes);

/* Fail the allocation that is the Nth from now (1 = the next one); 0 turns
 * failure injection off. Process-wide; tests call it from one thread. */
void alloc_fail_after(long n);
/* How many allocations were failed on purpose since the last reset. */
long alloc_failures(void);

#endif
