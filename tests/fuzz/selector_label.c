/*
 * fuzz selector_label: label selector parsing and matching
 * (cache_selector_label_parse, cache_selector_label_match, cache_selector_label_eq).
 *
 * The input is a labelSelector as a client sends it, once URL-decoded.
 * Label sets to match against are made from the words of the input
 * itself, so that matches happen and not only misses.
 *
 * Invariants beyond "no crash":
 *   - the answer does not depend on the size of the error buffer, and an
 *     error always says something;
 *   - parsing twice gives selectors that match the same label sets;
 *   - an empty selector matches everything;
 *   - the key=value that cache_selector_label_eq() offers for the label index holds
 *     in every label set the selector matches (else an indexed LIST would
 *     miss objects).
 */
#include <errno.h>
#include <stdbool.h>

#include "cache/selector.h"
#include "tests/fuzz/fuzz.h"

#define MAXW 8

static int label_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cache_label *)a)->key,
		      ((const struct cache_label *)b)->key);
}

/* Split s on the selector's punctuation into at most MAXW words. */
static int words(char *s, char **w)
{
	int n = 0;
	for (char *t = strtok(s, " ,=!()\t"); t && n < MAXW;
	     t = strtok(NULL, " ,=!()\t"))
		w[n++] = t;
	return n;
}

/* Labels k=v from the words (pairs, keys unique), sorted by key. */
static size_t make_labels(char **w, int nw, int shift, struct cache_label *l)
{
	size_t n = 0;
	for (int i = 0; i < nw; i++) {
		const char *k = w[(i + shift) % nw];
		const char *v = w[(i + shift + 1) % nw];
		bool dup = false;
		for (size_t j = 0; j < n; j++)
			dup |= !strcmp(l[j].key, k);
		if (!dup) {
			l[n].key = k;
			l[n].val = i % 3 == 2 ? "" : v;
			n++;
		}
	}
	qsort(l, n, sizeof(*l), label_cmp);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), *copy = fuzz_cstr(data, size);
	if (!s || !copy)
		goto out_free;
	struct cache_lsel *a = NULL, *b = NULL;
	char err[512], small[8];
	int ra = cache_selector_label_parse(s, &a, err, sizeof(err));
	int rb = cache_selector_label_parse(s, &b, small, sizeof(small));
	FUZZ_CHECK(ra == rb);
	FUZZ_CHECK(ra == 0 || ra == -EINVAL || ra == -ENOMEM);
	if (ra) {
		FUZZ_CHECK(!a && !b);
		FUZZ_CHECK(err[0] && strlen(err) < sizeof(err));
		FUZZ_CHECK(strlen(small) < sizeof(small));
		goto out_free;
	}
	char *w[MAXW];
	int nw = words(copy, w);
	struct cache_label l[MAXW + 1];
	const char *ek = NULL, *ev = cache_selector_label_eq(a, &ek);
	for (int shift = 0; shift <= nw; shift++) {
		size_t n = shift < nw ? make_labels(w, nw, shift, l) : 0;
		if (shift == nw && ev) { /* just the indexed pair */
			l[0].key = ek;
			l[0].val = ev;
			n = 1;
		}
		bool m = cache_selector_label_match(a, l, n);
		FUZZ_CHECK(m == cache_selector_label_match(b, l, n));
		if (cache_selector_label_empty(a))
			FUZZ_CHECK(m);
		if (m && ev) {
			const char *have = NULL;
			for (size_t i = 0; i < n; i++)
				if (!strcmp(l[i].key, ek))
					have = l[i].val;
			FUZZ_CHECK(have && !strcmp(have, ev));
		}
	}
	cache_selector_label_free(a);
	cache_selector_label_free(b);
out_free:
	free(s);
	free(copy);
	return 0;
}
