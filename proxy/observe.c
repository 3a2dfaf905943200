/*
 * observe: request, delivery and watcher-lag histograms (see observe.h).
 */
#include "proxy/observe.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "proxy/route.h"

static const struct config_histogram_bounds request_bounds = {
	.n = 15,
	.le = { .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5,
		5, 10, 60 },
	.unit = 1e-9,
};

const struct config_histogram_bounds proxy_observe_lag_bounds = {
	.n = 15,
	.le = { .00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05,
		.1, .25, .5, 1, 5 },
	.unit = 1e-9,
};

const struct config_histogram_bounds proxy_observe_queue_bounds = {
	.n = 14,
	.le = { 0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
		10000 },
	.unit = 1,
};

/* One proxy's request histograms: fixed once made, read and added to
 * without a lock. */
struct proxy_observe {
	/* [slot][verb][code], slots: 0 none, 1 other, 2.. the kinds */
	struct config_histogram *req;
	const struct cache_kind **kinds;
	int nslots;
};

/* The request histogram of a slot, verb and code slot. */
static struct config_histogram *req_hist(const struct proxy_observe *o,
					 int slot, int verb, int code)
{
	return &o->req[((size_t)slot * CONFIG_NVERBS + (size_t)verb) *
			       CONFIG_HISTOGRAM_NCODES +
		       (size_t)code];
}

int proxy_observe_init(struct proxy *p)
{
	struct proxy_observe *o = xcalloc(1, sizeof(*o));
	if (!o ||
	    !(o->kinds = xcalloc((size_t)p->nres + 2, sizeof(*o->kinds)))) {
		free(o);
		return -ENOMEM;
	}
	o->nslots = 2;
	for (int i = 0; i < p->nres; i++) {
		int k = 2;
		while (k < o->nslots && o->kinds[k] != p->res[i]->kind)
			k++;
		if (k == o->nslots)
			o->kinds[o->nslots++] = p->res[i]->kind;
	}
	o->req = xcalloc((size_t)o->nslots * CONFIG_NVERBS *
				 CONFIG_HISTOGRAM_NCODES,
			 sizeof(*o->req));
	p->obs = o;
	if (!o->req) {
		proxy_observe_free(p);
		return -ENOMEM;
	}
	return 0;
}

void proxy_observe_free(struct proxy *p)
{
	struct proxy_observe *o = p->obs;
	if (!o)
		return;
	free(o->req);
	free(o->kinds);
	free(o);
	p->obs = NULL;
}

int proxy_observe_slot(struct proxy *p, const struct proxy_route *rt)
{
	const struct proxy_observe *o = p->obs;
	if (!o || !rt)
		return 0;
	const struct cache_kind **kinds = o->kinds;
	for (int k = 2; k < o->nslots; k++)
		if (!strcmp(kinds[k]->resource, rt->resource) &&
		    !strcmp(kinds[k]->group, rt->group))
			return k;
	return 1;
}

void proxy_observe_request(struct proxy *p, int verb, int slot, long code,
			   int64_t ns)
{
	struct proxy_observe *o = p->obs;
	if (!o || slot < 0 || slot >= o->nslots || verb < 0 ||
	    verb >= CONFIG_NVERBS)
		return;
	struct config_histogram *h =
		req_hist(o, slot, verb, config_histogram_code_slot(code));
	config_histogram_observe(h, &request_bounds, (double)ns / 1e9,
				 (uint64_t)(ns > 0 ? ns : 0));
}

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct proxy_observe_watch *reg_head;

void proxy_observe_watch_add(struct proxy_observe_watch *w)
{
	pthread_mutex_lock(&reg_lock);
	w->prev = NULL;
	w->next = reg_head;
	if (reg_head)
		reg_head->prev = w;
	reg_head = w;
	pthread_mutex_unlock(&reg_lock);
}

void proxy_observe_watch_del(struct proxy_observe_watch *w)
{
	pthread_mutex_lock(&reg_lock);
	if (w->prev)
		w->prev->next = w->next;
	else if (reg_head == w)
		reg_head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->prev = w->next = NULL;
	pthread_mutex_unlock(&reg_lock);
}

uint64_t proxy_observe_lag_max(struct cache_resource *r)
{
	uint64_t head = cache_history_head(r->history), max = 0;
	pthread_mutex_lock(&reg_lock);
	for (struct proxy_observe_watch *w = reg_head; w; w = w->next) {
		uint64_t at = __atomic_load_n(w->cursor, __ATOMIC_RELAXED);
		if (w->r == r && head > at && head - at > max)
			max = head - at;
	}
	pthread_mutex_unlock(&reg_lock);
	return max;
}

static void slot_name(const struct proxy_observe *o, int slot, char *out,
		      size_t len)
{
	if (slot < 2) {
		snprintf(out, len, "%s", slot ? "other" : "none");
		return;
	}
	const struct cache_kind *k = o->kinds[slot];
	snprintf(out, len, "%s%s%s", k->resource, k->group[0] ? "." : "",
		 k->group);
}

void proxy_observe_family(struct buf *b, const char *name, const char *type,
			  const char *help)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help ? help : "",
		   name, type);
}

void proxy_observe_res_labels(const struct cache_resource *r, char *out,
			      size_t len)
{
	const struct cache_kind *k = r->kind;
	snprintf(out, len, "resource=\"%s%s%s\"%s%s%s", k->resource,
		 k->group[0] ? "." : "", k->group,
		 r->scope.ns ? ",namespace=\"" : "",
		 r->scope.ns ? r->scope.ns : "", r->scope.ns ? "\"" : "");
}

/* A family of one histogram per live reflector: the one at offset field
 * of struct cache_resource. */
static void res_hist_family(struct buf *b, struct proxy *p, const char *name,
			    const char *help, size_t field,
			    const struct config_histogram_bounds *bounds)
{
	proxy_observe_family(b, name, "histogram", help);
	for (int i = 0, n = proxy_nres(p); i < n; i++) {
		char lab[PROXY_OBSERVE_LABELS_MAX];
		if (cache_resource_retired(p->res[i]))
			continue;
		proxy_observe_res_labels(p->res[i], lab, sizeof(lab));
		const struct config_histogram *h =
			(const void *)((const char *)p->res[i] + field);
		config_histogram_write(b, name, lab, h, bounds);
	}
}

void proxy_observe_write(struct buf *b, struct proxy *p)
{
	const char *name = "informer_proxy_request_duration_seconds";
	proxy_observe_family(
		b, name, "histogram",
		"Requests answered or passed through, by verb, resource "
		"(other: not cached, none: not a resource path) and HTTP "
		"code; a watch counts its whole stream.");
	const struct proxy_observe *o = p->obs;
	for (int s = 0; o && s < o->nslots; s++)
		for (int v = 0; v < CONFIG_NVERBS; v++)
			for (int c = 0; c < CONFIG_HISTOGRAM_NCODES; c++) {
				const struct config_histogram *h =
					req_hist(o, s, v, c);
				if (!config_histogram_count(h, &request_bounds))
					continue;
				char res[PROXY_OBSERVE_RES_MAX],
					labels[PROXY_OBSERVE_LABELS_MAX];
				slot_name(o, s, res, sizeof(res));
				snprintf(labels, sizeof(labels),
					 "verb=\"%s\",resource=\"%s\","
					 "code=\"%s\"",
					 config_histogram_verb_name(v), res,
					 config_histogram_code_name(c));
				config_histogram_write(b, name, labels, h,
						       &request_bounds);
			}
	res_hist_family(b, p, "informer_proxy_event_delivery_seconds",
			"From an upstream watch event's arrival to its copy "
			"into a local watch's stream, per delivery.",
			offsetof(struct cache_resource, delivery_lag),
			&proxy_observe_lag_bounds);
	res_hist_family(b, p, "informer_proxy_watcher_lag_events",
			"Events a local watch was behind the newest when it "
			"sent (the analogue of a workqueue's depth).",
			offsetof(struct cache_resource, watcher_lag),
			&proxy_observe_queue_bounds);
	name = "informer_proxy_watcher_lag_events_max";
	proxy_observe_family(b, name, "gauge",
			     "Events the furthest-behind open local watch is "
			     "behind the newest now.");
	for (int i = 0, n = proxy_nres(p); i < n; i++) {
		char lab[PROXY_OBSERVE_LABELS_MAX];
		if (cache_resource_retired(p->res[i]))
			continue;
		proxy_observe_res_labels(p->res[i], lab, sizeof(lab));
		buf_printf(
			b, "%s{%s} %llu\n", name, lab,
			(unsigned long long)proxy_observe_lag_max(p->res[i]));
	}
}
