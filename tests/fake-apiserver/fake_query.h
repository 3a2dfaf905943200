/*
 * fake_query: list and watch options from the query string, validated
 * the way the apiserver does (400 for unparsable values and selectors,
 * 422 for forbidden combinations), and the object filter they describe.
 */
#ifndef FAKE_QUERY_H
#define FAKE_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/selector.h"
#include "fake_http.h"
#include "fake_store.h"

struct fake_filter {
	int res;
	const char *ns;	  /* the path's namespace, NULL for all */
	const char *name; /* the path's object name (watch), or NULL */
	struct cache_lsel *lsel;
	struct cache_fsel *fsel;
};

struct fake_listopts {
	const char *rv;	      /* resourceVersion, NULL when unset */
	const char *rv_match; /* resourceVersionMatch, "" when unset */
	long long limit;      /* 0: none */
	const char *cont;     /* continue, NULL when unset or empty */
	long long timeout;    /* timeoutSeconds, 0: none */
	bool bookmarks;	      /* allowWatchBookmarks */
	int send_initial;     /* sendInitialEvents: -1 unset, 0, 1 */
};

/*
 * Parse the options and the selectors of rq (a LIST when !rq->watch).
 * Returns true, or false with an error reply queued in *ret. On success
 * the filter must be released with fake_filter_free().
 */
bool fake_listopts_parse(struct fake_req *rq, struct fake_listopts *o,
			 struct fake_filter *f, enum MHD_Result *ret);
void fake_filter_free(struct fake_filter *f);
bool fake_filter_match(const struct fake_filter *f, const struct fake_obj *o);
/* Whether the filter can reject anything besides namespace and name. */
bool fake_filter_selects(const struct fake_filter *f);

/* Parse a resourceVersion (NULL/"" → 0). false with a 500 reply queued
 * when it is not a number (no reason, the storage layer's error), as the
 * apiserver does. */
bool fake_rv_parse(struct MHD_Connection *c, const char *s, uint64_t *rv,
		   enum MHD_Result *ret);
/* Wait up to 3 s for the store to reach rv. false with the 504 reply
 * queued if it did not, as the apiserver. */
bool fake_rv_wait(struct MHD_Connection *c, uint64_t rv, enum MHD_Result *ret);

#endif
