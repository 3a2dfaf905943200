/*
 * loadgen check: label filters, latency histograms, the JSON scanning
 * helpers, and the consistency checker.
 *
 * The checker knows every write loadgen made and the resourceVersion the
 * writer answered with. For each watcher it walks the writes in RV order,
 * keeps those its namespace and label filter match, and compares them
 * with the RVs the watcher received (a bitmap): an expected RV not
 * received is missed; a received RV nobody expected is unexpected; the
 * watch thread already counted duplicates and RVs that went backwards.
 * A sum of (rv, type, namespace/name) hashes over what was received,
 * compared with the same sum over the writes, catches an event delivered
 * at the right RV with the wrong object or type (mismatched).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen.h"

/* ---- histogram: 64 sub-buckets per power of two, under 1% error ---- */

static unsigned bucket_of(uint64_t v)
{
	if (v < 128)
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	unsigned shift = msb - 6;
	unsigned idx = 128 + (shift - 1) * 64 + (unsigned)((v >> shift) - 64);
	return idx < LG_HIST_BUCKETS ? idx : LG_HIST_BUCKETS - 1;
}

static uint64_t value_of(unsigned idx)
{
	if (idx < 128)
		return idx;
	unsigned shift = (idx - 128) / 64 + 1;
	uint64_t mant = (idx - 128) % 64 + 64;
	return (mant << shift) + (1ull << shift) / 2; /* bucket middle */
}

void lg_hist_add(struct lg_hist *h, uint64_t us)
{
	h->b[bucket_of(us)]++;
	h->n++;
	if (us > h->max_us)
		h->max_us = us;
}

void lg_hist_merge(struct lg_hist *into, const struct lg_hist *from)
{
	for (unsigned i = 0; i < LG_HIST_BUCKETS; i++)
		into->b[i] += from->b[i];
	into->n += from->n;
	if (from->max_us > into->max_us)
		into->max_us = from->max_us;
}

double lg_hist_ms(const struct lg_hist *h, double q)
{
	if (!h->n)
		return 0;
	if (q >= 1)
		return (double)h->max_us / 1000.0;
	uint64_t want = (uint64_t)(q * (double)h->n);
	if (want >= h->n)
		want = h->n - 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < LG_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen > want) {
			uint64_t v = value_of(i);
			return (double)(v > h->max_us ? h->max_us : v) / 1000.0;
		}
	}
	return (double)h->max_us / 1000.0;
}

/* ---- filters ---- */

static bool shard_in(int s, const struct lg_filter *f)
{
	return s >= 0 && (s == f->a || s == f->b || s == f->c);
}

bool lg_filter_match(const struct lg_filter *f, int ns,
		     const struct lg_labels *l)
{
	if (f->ns >= 0 && f->ns != ns)
		return false;
	switch (f->sel) {
	case SEL_NONE:
		return true;
	case SEL_TIER_EQ:
		return l->tier == TIER_FRONTEND;
	case SEL_TIER_NE:
		return l->tier != TIER_BACKEND;
	case SEL_SHARD_IN:
		return shard_in(l->shard, f);
	case SEL_SHARD_EXISTS_NOTIN:
		return l->app_web && l->shard >= 0 && l->shard != f->a;
	case SEL_NO_TIER:
		return l->tier == TIER_NONE;
	default:
		return false;
	}
}

void lg_filter_query(const struct lg_filter *f, char *out, size_t cap)
{
	switch (f->sel) {
	case SEL_TIER_EQ:
		snprintf(out, cap, "tier%%3Dfrontend");
		break;
	case SEL_TIER_NE:
		snprintf(out, cap, "tier%%21%%3Dbackend");
		break;
	case SEL_SHARD_IN:
		snprintf(out, cap, "shard%%20in%%20%%28%d%%2C%d%%2C%d%%29",
			 f->a, f->b, f->c);
		break;
	case SEL_SHARD_EXISTS_NOTIN:
		snprintf(out, cap,
			 "app%%3Dweb%%2Cshard%%2Cshard%%20notin%%20"
			 "%%28%d%%29",
			 f->a);
		break;
	case SEL_NO_TIER:
		snprintf(out, cap, "%%21tier");
		break;
	default:
		out[0] = '\0';
	}
}

/* ---- scanning apiserver JSON whose member order is known ---- */

const char *lg_find(const char *p, const char *end, const char *needle)
{
	if (!p || p >= end)
		return NULL;
	return memmem(p, (size_t)(end - p), needle, strlen(needle));
}

const char *lg_str_after(const char *p, const char *end, const char *needle,
			 size_t *len)
{
	const char *k = lg_find(p, end, needle);
	if (!k)
		return NULL;
	const char *v = k + strlen(needle);
	const char *q = memchr(v, '"', (size_t)(end - v));
	if (!q)
		return NULL;
	*len = (size_t)(q - v);
	return v;
}

void lg_parse_labels(const char *p, const char *end, struct lg_labels *l)
{
	l->app_web = false;
	l->shard = -1;
	l->tier = TIER_NONE;
	const char *s = lg_find(p, end, "\"labels\":{");
	if (!s)
		return;
	s += 10;
	const char *e = memchr(s, '}', (size_t)(end - s));
	if (!e)
		return;
	/* "k":"v" pairs; label keys and values never hold quotes */
	while (s < e) {
		const char *k = memchr(s, '"', (size_t)(e - s));
		if (!k)
			break;
		const char *ke = memchr(k + 1, '"', (size_t)(e - k - 1));
		if (!ke || ke + 2 >= e || ke[1] != ':' || ke[2] != '"')
			break;
		const char *v = ke + 3;
		const char *ve = memchr(v, '"', (size_t)(e - v));
		if (!ve)
			break;
		size_t kl = (size_t)(ke - k - 1), vl = (size_t)(ve - v);
		if (kl == 3 && !memcmp(k + 1, "app", 3))
			l->app_web = vl == 3 && !memcmp(v, "web", 3);
		else if (kl == 5 && !memcmp(k + 1, "shard", 5))
			l->shard = (int16_t)atoi(v);
		else if (kl == 4 && !memcmp(k + 1, "tier", 4))
			l->tier = vl == 8 && !memcmp(v, "frontend", 8) ?
					  TIER_FRONTEND :
				  vl == 7 && !memcmp(v, "backend", 7) ?
					  TIER_BACKEND :
					  TIER_NONE;
		s = ve + 1;
	}
}

/* ---- the checker ---- */

static int cmp_rv(const void *a, const void *b)
{
	const struct lg_write *x = a, *y = b;
	return x->rv < y->rv ? -1 : x->rv > y->rv;
}

static bool got(const struct lg_watcher *w, uint64_t rv)
{
	if (rv <= w->start_rv)
		return false;
	uint64_t i = rv - w->start_rv - 1;
	return i < w->nbits && (w->bits[i / 64] >> (i % 64) & 1);
}

void lg_check_expect(struct lg_run *r, uint64_t *last)
{
	pthread_mutex_lock(&r->lock);
	for (int i = 0; i < r->o.watchers; i++) {
		last[i] = 0;
		for (size_t j = 0; j < r->nwrites; j++) {
			const struct lg_write *wr = &r->writes[j];
			if (wr->rv > last[i] && wr->rv > r->w[i].start_rv &&
			    lg_filter_match(&r->w[i].filter, wr->ns,
					    &wr->labels))
				last[i] = wr->rv;
		}
	}
	pthread_mutex_unlock(&r->lock);
}

void lg_check(struct lg_run *r, struct lg_violations *v)
{
	memset(v, 0, sizeof(*v));
	qsort(r->writes, r->nwrites, sizeof(*r->writes), cmp_rv);
	for (size_t j = 1; j < r->nwrites; j++)
		if (r->writes[j].rv == r->writes[j - 1].rv)
			fprintf(stderr,
				"loadgen: writer returned rv %llu twice\n",
				(unsigned long long)r->writes[j].rv);
	for (int i = 0; i < r->o.watchers; i++) {
		struct lg_watcher *w = &r->w[i];
		uint64_t present = 0, sum = 0;
		v->duplicated += w->dup;
		v->out_of_order += w->ooo;
		if (w->expired) {
			/* a 410 ends what can be judged; count it separately */
			v->expired++;
		}
		for (size_t j = 0; j < r->nwrites; j++) {
			const struct lg_write *wr = &r->writes[j];
			if (wr->rv <= w->start_rv ||
			    !lg_filter_match(&w->filter, wr->ns, &wr->labels))
				continue;
			if (w->expired && wr->rv > w->last_rv)
				continue;
			v->expected++;
			if (got(w, wr->rv)) {
				present++;
				sum += lg_ev_hash(wr->rv, wr->type, wr->key);
			} else {
				v->missed++;
			}
		}
		/* every bit set is a distinct received RV */
		uint64_t distinct = 0;
		for (size_t k = 0; k < (w->nbits + 63) / 64; k++)
			distinct += (uint64_t)__builtin_popcountll(w->bits[k]);
		v->unexpected += w->unexpected + (distinct - present);
		if (distinct == present && sum != w->sum)
			v->mismatched++;
	}
}

int lg_seen_add(struct lg_seen *s, uint64_t base, uint64_t rv, uint64_t ns)
{
	if (rv < base || rv - base >= (1ull << 30))
		return 0; /* before every start, or absurd: not an event here */
	size_t i = (size_t)(rv - base);
	if (i >= s->n) {
		size_t n = s->n ? s->n : 4096;
		while (n <= i)
			n *= 2;
		uint64_t *p = realloc(s->ns, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + s->n, 0, (n - s->n) * sizeof(*p));
		s->ns = p;
		s->n = n;
	}
	if (ns > s->ns[i])
		s->ns[i] = ns;
	return 0;
}

void lg_check_lag(struct lg_run *r)
{
	const struct lg_seen *first = &r->tlast[0];
	for (int k = 1; k < r->o.ntargets; k++) {
		const struct lg_seen *s = &r->tlast[k];
		for (size_t i = 0; i < s->n && i < first->n; i++)
			if (s->ns[i] && first->ns[i])
				lg_hist_add(&r->tlag[k],
					    s->ns[i] > first->ns[i] ?
						    (s->ns[i] - first->ns[i]) /
							    1000 :
						    0);
	}
}

static int cmp_write_rv(const void *a, const void *b)
{
	const struct lg_write *x = a, *y = b;
	return x->rv < y->rv ? -1 : x->rv > y->rv;
}

void lg_check_last(struct lg_run *r)
{
	size_t n = 0;
	for (int k = 0; k < r->o.ntargets; k++)
		if (r->tlast[k].n > n)
			n = r->tlast[k].n;
	for (size_t j = 0; j < n; j++) {
		uint64_t last = 0;
		for (int k = 0; k < r->o.ntargets; k++)
			if (j < r->tlast[k].n && r->tlast[k].ns[j] > last)
				last = r->tlast[k].ns[j];
		struct lg_write key = { .rv = r->rv_base + j };
		const struct lg_write *wr =
			last ? bsearch(&key, r->writes, r->nwrites, sizeof(key),
				       cmp_write_rv) :
			       NULL;
		if (wr)
			lg_hist_add(&r->last_h,
				    last > wr->sent_ns ?
					    (last - wr->sent_ns) / 1000 :
					    0);
	}
}
