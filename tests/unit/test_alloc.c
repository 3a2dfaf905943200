/*
 * test_alloc: the allocation door: zero-size requests, the strdup
 * helpers, and failure injection counting down to exactly the Nth call.
 */
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "check.h"

static void test_plain(void)
{
	void *p = xmalloc(0);	/* never NULL for size 0 */
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
	s = xstrndup("a\0b", 3);	/* n bytes, NULs and all */
	CHECK(s && s[0] == 'a' && s[1] == '\0' && s[2] == 'b' && s[3] == '\0');
	free(s);
	alloc_give_back();	/* harmless whenever called */
}

static void test_injection(void)
{
	alloc_fail_after(3);
	void *a = xmalloc(8), *b = xstrdup("x"), *c = xcalloc(1, 8);
	void *d = xmalloc(8);
	CHECK(a && b && !c && d);	/* exactly the third */
	CHECK(alloc_failures() == 1);
	free(a);
	free(b);
	free(d);
	a = xmalloc(8);			/* once only */
	CHECK(a != NULL && alloc_failures() == 1);
	free(a);

	alloc_fail_after(1);
	void *keep = malloc(4);
	CHECK(xrealloc(keep, 64) == NULL);	/* keep is still ours */
	free(keep);
	CHECK(alloc_failures() == 1);
	alloc_fail_after(0);			/* off, and counts reset */
	CHECK(alloc_failures() == 0);
	a = xmalloc(1);
	CHECK(a != NULL && alloc_failures() == 0);
	free(a);
}

int main(void)
{
	test_plain();
	test_injection();
	return check_done("alloc");
}
