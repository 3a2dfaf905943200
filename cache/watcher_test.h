/*
 * watcher_test: the event decoder of watcher.c, exported for its fuzzer
 * (tests/fuzz/watch_event.c) only. Not for other modules.
 */
#ifndef CACHE_WATCHER_TEST_H
#define CACHE_WATCHER_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "cache/json.h"

/* One watch event line, decoded but not applied. */
enum {
	REFL_EV_ADDED,
	REFL_EV_MODIFIED,
	REFL_EV_DELETED,
	REFL_EV_BOOKMARK,
	REFL_EV_ERROR
};
struct cache_watcher_event {
	int type;      /* REFL_EV_* */
	int obj;       /* the "object" member's token in the doc */
	uint64_t rv;   /* its resourceVersion; 0 for ERROR */
	int64_t code;  /* ERROR: the Status code, 0 if none */
	char msg[256]; /* ERROR: the Status message, "" if none */
};

/*
 * Tokenize one event line into d and read what applying it needs. Accepts
 * a JSON object with a "type" and an object-valued "object"; an ERROR
 * needs nothing more, every other type a numeric
 * object.metadata.resourceVersion and one of ADDED, MODIFIED, DELETED,
 * BOOKMARK. Refuses anything else with -EINVAL and err set ("malformed
 * event: ...", "event without type or object", ...). Touches nothing but
 * d, ev and err, so a fuzzer can drive it alone. Any thread.
 */
int cache_watcher_event_decode(struct json_doc *d, const char *line, size_t len,
			       const struct json_shape *shape,
			       struct cache_watcher_event *ev, char *err,
			       size_t errlen);

#endif
