/*
 * histogram: lock-free Prometheus histograms (see histogram.h).
 */
#include "config/histogram.h"

#include <stdio.h>
#include <string.h>

void config_histogram_observe(struct config_histogram *h,
			      const struct config_histogram_bounds *b, double v,
			      uint64_t units)
{
	int i = 0;
	while (i < b->n && v > b->le[i])
		i++;
	__atomic_add_fetch(&h->counts[i], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&h->sum, units, __ATOMIC_RELAXED);
}

uint64_t config_histogram_count(const struct config_histogram *h,
				const struct config_histogram_bounds *b)
{
	uint64_t n = 0;
	for (int i = 0; i <= b->n; i++)
		n += __atomic_load_n(&h->counts[i], __ATOMIC_RELAXED);
	return n;
}

void config_histogram_write(struct buf *out, const char *name,
			    const char *labels,
			    const struct config_histogram *h,
			    const struct config_histogram_bounds *b)
{
	const char *sep = labels[0] ? "," : "";
	uint64_t cum = 0;
	for (int i = 0; i <= b->n; i++) {
		cum += __atomic_load_n(&h->counts[i], __ATOMIC_RELAXED);
		if (i < b->n)
			buf_printf(out, "%s_bucket{%s%sle=\"%g\"} %llu\n", name,
				   labels, sep, b->le[i],
				   (unsigned long long)cum);
		else
			buf_printf(out, "%s_bucket{%s%sle=\"+Inf\"} %llu\n",
				   name, labels, sep, (unsigned long long)cum);
	}
	/* the count is the +Inf bucket's, read once: a scrape racing an
	 * observation never shows _count below a bucket */
	double sum =
		(double)__atomic_load_n(&h->sum, __ATOMIC_RELAXED) * b->unit;
	if (labels[0]) {
		buf_printf(out, "%s_sum{%s} %.9g\n", name, labels, sum);
		buf_printf(out, "%s_count{%s} %llu\n", name, labels,
			   (unsigned long long)cum);
	} else {
		buf_printf(out, "%s_sum %.9g\n%s_count %llu\n", name, sum, name,
			   (unsigned long long)cum);
	}
}

static const short codes[CONFIG_HISTOGRAM_NCODES - 1] = {
	200, 201, 202, 204, 206, 304, 400, 401, 403, 404, 405,
	406, 409, 410, 413, 415, 422, 429, 500, 502, 503, 504,
};

int config_histogram_code_slot(long code)
{
	if (code <= 0)
		return CONFIG_HISTOGRAM_NCODES - 1;
	for (int i = 0; i < CONFIG_HISTOGRAM_NCODES - 1; i++)
		if (codes[i] == code)
			return i;
	return CONFIG_HISTOGRAM_NCODES - 2;
}

const char *config_histogram_code_name(int slot)
{
	static const char *const names[CONFIG_HISTOGRAM_NCODES] = {
		"200", "201", "202", "204", "206", "304", "400",   "401",
		"403", "404", "405", "406", "409", "410", "413",   "415",
		"422", "429", "500", "502", "503", "504", "other", "error",
	};
	return slot >= 0 && slot < CONFIG_HISTOGRAM_NCODES ? names[slot] :
							     "other";
}

int config_histogram_verb_slot(const char *method, bool name, bool watch)
{
	if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
		return watch ? CONFIG_VERB_WATCH :
		       name  ? CONFIG_VERB_GET :
			       CONFIG_VERB_LIST;
	if (!strcmp(method, "POST"))
		return CONFIG_VERB_CREATE;
	if (!strcmp(method, "PUT"))
		return CONFIG_VERB_UPDATE;
	if (!strcmp(method, "PATCH"))
		return CONFIG_VERB_PATCH;
	if (!strcmp(method, "DELETE"))
		return name ? CONFIG_VERB_DELETE : CONFIG_VERB_DELETECOLLECTION;
	return CONFIG_VERB_OTHER;
}

const char *config_histogram_verb_name(int verb)
{
	static const char *const names[CONFIG_NVERBS] = {
		"get",	  "list",  "watch",  "create",
		"update", "patch", "delete", "deletecollection",
		"other",
	};
	return verb >= 0 && verb < CONFIG_NVERBS ? names[verb] : "other";
}
