/*
 * histogram: a Prometheus histogram that many threads observe without a
 * lock.
 *
 * Bucket counts and the sum are plain integers added to with relaxed
 * atomics, so an observation on a hot path costs a few atomic adds and
 * never waits. Bounds are a static array the caller keeps; counts are
 * stored per bucket and made cumulative when written out. The sum is kept
 * in integer units of the caller's choosing (nanoseconds for seconds, 1
 * for counts) and scaled on output.
 *
 * A struct config_histogram is zeroed memory: calloc it, or embed it.
 */
#ifndef CONFIG_HISTOGRAM_H
#define CONFIG_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "config/buf.h"

#define CONFIG_HISTOGRAM_MAX_BUCKETS 16

struct config_histogram_bounds {
	int n; /* finite bounds, ascending */
	double le[CONFIG_HISTOGRAM_MAX_BUCKETS];
	double unit; /* what one unit of the sum is worth */
};

struct config_histogram {
	uint64_t counts[CONFIG_HISTOGRAM_MAX_BUCKETS + 1]; /* the last: +Inf */
	uint64_t sum;					   /* in units */
};

/* Count v (in the bounds' scale) and add units to the sum. Any thread. */
void config_histogram_observe(struct config_histogram *h,
			      const struct config_histogram_bounds *b, double v,
			      uint64_t units);
/* Observations so far. */
uint64_t config_histogram_count(const struct config_histogram *h,
				const struct config_histogram_bounds *b);
/* The _bucket, _sum and _count samples of name{labels} (labels without
 * braces, "" for none) to out. */
void config_histogram_write(struct buf *out, const char *name,
			    const char *labels,
			    const struct config_histogram *h,
			    const struct config_histogram_bounds *b);

/* HTTP status codes as a bounded label set: the codes an apiserver and
 * this proxy answer with each have a slot, every other code shares
 * "other", so no client can grow the label set; 0 or less (no answer,
 * a transport error) is "error". */
#define CONFIG_HISTOGRAM_NCODES 24
int config_histogram_code_slot(long code);
const char *config_histogram_code_name(int slot);

/* Request verbs as the apiserver names them, from the method and whether
 * the request names an object (name) or asks for a watch. */
enum {
	CONFIG_VERB_GET,
	CONFIG_VERB_LIST,
	CONFIG_VERB_WATCH,
	CONFIG_VERB_CREATE,
	CONFIG_VERB_UPDATE,
	CONFIG_VERB_PATCH,
	CONFIG_VERB_DELETE,
	CONFIG_VERB_DELETECOLLECTION,
	CONFIG_VERB_OTHER,
	CONFIG_NVERBS
};
int config_histogram_verb_slot(const char *method, bool name, bool watch);
const char *config_histogram_verb_name(int verb);

#endif
