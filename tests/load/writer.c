/*
 * loadgen writer: the pod pool, paced writes through the writer URL, and
 * the LIST and GET load on the target.
 *
 * A write is, by default, a JSON merge-patch of the annotation
 * loadgen.stamp=<CLOCK_REALTIME ns> onto a pooled pod (MODIFIED); a few
 * percent are creates of new pods carrying the stamp (ADDED) and deletes
 * of pods loadgen created (DELETED). Every write is logged with the
 * resourceVersion the writer answered, the namespace and the labels, so
 * check.c can tell which watcher had to see it.
 *
 * Pacing is open-loop: write i is due at start + i/rate, whichever
 * connection takes it, so a slow answer does not lower the offered rate
 * (up to the number of connections).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loadgen.h"

static void sleep_until_mono(uint64_t due)
{
	struct timespec ts = { (time_t)(due / 1000000000ull),
			       (long)(due % 1000000000ull) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The resourceVersion of the object (or list) in a response body. */
static uint64_t body_rv(const struct lg_buf *b)
{
	size_t n;
	if (!b->p)
		return 0;
	const char *md = lg_find(b->p, b->p + b->len, "\"metadata\":{");
	const char *v = md ? lg_str_after(md, b->p + b->len,
					  "\"resourceVersion\":\"", &n) :
			     NULL;
	if (!v)
		return 0;
	uint64_t rv = 0;
	for (size_t i = 0; i < n && v[i] >= '0' && v[i] <= '9'; i++)
		rv = rv * 10 + (uint64_t)(v[i] - '0');
	return rv;
}

int lg_pool_load(struct lg_run *r)
{
	struct lg_http h;
	struct lg_buf body = { 0 };
	char path[512];
	int per = r->o.pool / r->o.nns;
	int rc = 0;

	if (per < 1)
		per = 1;
	lg_http_init(&h, &r->writer, 30000);
	r->pods = calloc((size_t)per * (size_t)r->o.nns, sizeof(*r->pods));
	if (!r->pods)
		return -ENOMEM;
	for (int k = 0; k < r->o.nns; k++) {
		snprintf(path, sizeof(path), "%s/namespaces/%s/%s?limit=%d",
			 r->res_path, r->o.ns[k], r->o.resource, per);
		int st = lg_http_do(&h, "GET", path, NULL, NULL, 0, &body);
		if (st != 200) {
			fprintf(stderr, "loadgen: pool: GET %s: %d\n", path,
				st);
			rc = -EIO;
			break;
		}
		const char *end = body.p + body.len;
		const char *p = lg_find(body.p, end, "\"items\":[");
		int got = 0;
		while (p && got < per) {
			const char *it =
				lg_find(p, end, "\"metadata\":{\"name\":\"");
			if (!it)
				break;
			const char *next = lg_find(it + 20, end,
						   "\"metadata\":{\"name\":\"");
			size_t nl;
			const char *name = lg_str_after(
				it, end, "\"metadata\":{\"name\":\"", &nl);
			struct lg_pod *pod = &r->pods[r->npods];
			if (name && nl < sizeof(pod->name)) {
				memcpy(pod->name, name, nl);
				pod->name[nl] = '\0';
				pod->ns = k;
				lg_parse_labels(it, next ? next : end,
						&pod->labels);
				r->npods++;
				got++;
			}
			p = next;
		}
	}
	lg_http_close(&h);
	lg_buf_free(&h.in);
	lg_buf_free(&body);
	if (!rc && r->npods == 0 && r->o.watchers >= 0) {
		fprintf(stderr,
			"loadgen: pool: no %s found in the namespaces\n",
			r->o.resource);
		rc = -ENOENT;
	}
	return rc;
}

static void log_write(struct lg_run *r, const struct lg_write *w)
{
	pthread_mutex_lock(&r->lock);
	if (r->nwrites == r->capwrites) {
		size_t c = r->capwrites ? r->capwrites * 2 : 4096;
		struct lg_write *n = realloc(r->writes, c * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&r->lock);
			return;
		}
		r->writes = n;
		r->capwrites = c;
	}
	r->writes[r->nwrites++] = *w;
	if (!r->first_write_ns || w->sent_ns < r->first_write_ns)
		r->first_write_ns = w->sent_ns;
	pthread_mutex_unlock(&r->lock);
}

static uint64_t pod_key(struct lg_run *r, const struct lg_pod *p)
{
	const char *ns = r->o.ns[p->ns];
	uint64_t k = lg_hash(ns, strlen(ns), 0xcbf29ce484222325ULL);
	k = lg_hash("/", 1, k);
	return lg_hash(p->name, strlen(p->name), k);
}

static const char *const tier_name[] = { NULL, "frontend", "backend" };

/* Build the labels of a new pod from random bits. */
static void new_labels(uint64_t x, struct lg_labels *l)
{
	l->app_web = x % 10 != 0;
	l->shard = (x >> 8) % 10 == 0 ? -1 : (int16_t)((x >> 16) % 100);
	l->tier = (uint8_t)((x >> 24) % 3);
}

/* How many of our pods are alive now (other writers change it). */
static int alive(struct lg_run *r)
{
	pthread_mutex_lock(&r->lock);
	int n = r->nalive;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static int do_one(struct lg_run *r, struct lg_http *h, struct lg_buf *body,
		  long idx)
{
	uint64_t x = mix((uint64_t)idx ^ ((uint64_t)getpid() << 32));
	int pct = (int)(x % 100);
	struct lg_write w = { 0 };
	struct lg_pod pod;
	char path[512], req[1024];
	const char *method, *ctype = NULL;
	int n = 0, want;

	if (pct < r->o.create_pct) {
		method = "POST";
		want = 201;
		pod.ns = (int)((x >> 32) % (uint64_t)r->o.nns);
		pthread_mutex_lock(&r->lock);
		long c = r->created++;
		pthread_mutex_unlock(&r->lock);
		snprintf(pod.name, sizeof(pod.name), "lg-%d-%ld", (int)getpid(),
			 c);
		new_labels(x >> 7, &pod.labels);
		w.type = EV_ADDED;
	} else if (pct < r->o.create_pct + r->o.delete_pct && alive(r) > 0) {
		pthread_mutex_lock(&r->lock);
		if (r->nalive == 0) {
			pthread_mutex_unlock(&r->lock);
			return do_one(r, h, body, idx + 1000000007L);
		}
		int k = (int)((x >> 32) % (uint64_t)r->nalive);
		pod = r->alive[k];
		r->alive[k] = r->alive[--r->nalive];
		pthread_mutex_unlock(&r->lock);
		method = "DELETE";
		want = 200;
		w.type = EV_DELETED;
	} else {
		pod = r->pods[(x >> 32) % (uint64_t)r->npods];
		method = "PATCH";
		ctype = "application/merge-patch+json";
		want = 200;
		w.type = EV_MODIFIED;
	}

	w.sent_ns = lg_now_ns();
	if (w.type == EV_ADDED) {
		n = snprintf(
			req, sizeof(req),
			"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
			"{\"name\":\"%s\",\"labels\":{",
			pod.name);
		const char *sep = "";
		if (pod.labels.app_web) {
			n += snprintf(req + n, sizeof(req) - (size_t)n,
				      "\"app\":\"web\"");
			sep = ",";
		}
		if (pod.labels.shard >= 0) {
			n += snprintf(req + n, sizeof(req) - (size_t)n,
				      "%s\"shard\":\"%d\"", sep,
				      pod.labels.shard);
			sep = ",";
		}
		if (pod.labels.tier)
			n += snprintf(req + n, sizeof(req) - (size_t)n,
				      "%s\"tier\":\"%s\"", sep,
				      tier_name[pod.labels.tier]);
		n += snprintf(
			req + n, sizeof(req) - (size_t)n,
			"},\"annotations\":{\"loadgen.stamp\":\"%llu\"}},"
			"\"spec\":{\"containers\":[{\"name\":\"app\","
			"\"image\":\"registry.example.com/loadgen:1\"}]}}",
			(unsigned long long)w.sent_ns);
		ctype = "application/json";
		snprintf(path, sizeof(path), "%s/namespaces/%s/%s", r->res_path,
			 r->o.ns[pod.ns], r->o.resource);
	} else {
		if (w.type == EV_MODIFIED)
			n = snprintf(req, sizeof(req),
				     "{\"metadata\":{\"annotations\":"
				     "{\"loadgen.stamp\":\"%llu\"}}}",
				     (unsigned long long)w.sent_ns);
		snprintf(path, sizeof(path), "%s/namespaces/%s/%s/%s",
			 r->res_path, r->o.ns[pod.ns], r->o.resource, pod.name);
	}
	int st = lg_http_do(h, method, path, ctype, n ? req : NULL, (size_t)n,
			    body);
	if (st != want && !(st == 200 && w.type == EV_ADDED)) {
		if (!r->o.quiet)
			fprintf(stderr, "loadgen: %s %s: %d\n", method, path,
				st);
		return -EIO;
	}
	w.rv = body_rv(body);
	if (!w.rv)
		return -EPROTO;
	w.ns = pod.ns;
	w.labels = pod.labels;
	w.key = pod_key(r, &pod);
	log_write(r, &w);
	if (w.type == EV_ADDED) {
		pthread_mutex_lock(&r->lock);
		if (r->nalive == r->capalive) {
			int c = r->capalive ? r->capalive * 2 : 256;
			struct lg_pod *a =
				realloc(r->alive, (size_t)c * sizeof(*a));
			if (a) {
				r->alive = a;
				r->capalive = c;
			}
		}
		if (r->nalive < r->capalive)
			r->alive[r->nalive++] = pod;
		pthread_mutex_unlock(&r->lock);
	}
	return 0;
}

struct wr_arg {
	struct lg_run *r;
	uint64_t start_mono;
	int *done;
};

static void *writer_main(void *arg)
{
	struct wr_arg *a = arg;
	struct lg_run *r = a->r;
	struct lg_http h;
	struct lg_buf body = { 0 };

	lg_http_init(&h, &r->writer, 10000);
	while (!__atomic_load_n(&r->stop_writes, __ATOMIC_ACQUIRE)) {
		long idx =
			__atomic_fetch_add(&r->next_write, 1, __ATOMIC_RELAXED);
		if (r->o.max_writes && idx >= r->o.max_writes)
			break;
		if (r->o.write_rate > 0)
			sleep_until_mono(a->start_mono +
					 (uint64_t)((double)idx * 1e9 /
						    r->o.write_rate));
		if (__atomic_load_n(&r->stop_writes, __ATOMIC_ACQUIRE))
			break;
		if (do_one(r, &h, &body, idx)) {
			pthread_mutex_lock(&r->lock);
			r->write_errors++;
			pthread_mutex_unlock(&r->lock);
		}
	}
	pthread_mutex_lock(&r->lock);
	r->last_write_ns = lg_now_ns();
	pthread_mutex_unlock(&r->lock);
	__atomic_fetch_add(a->done, 1, __ATOMIC_RELEASE);
	lg_http_close(&h);
	lg_buf_free(&h.in);
	lg_buf_free(&body);
	return NULL;
}

static struct wr_arg wr_arg;
int lg_writers_done;

int lg_writers_run(struct lg_run *r, pthread_t *tids, int n)
{
	wr_arg = (struct wr_arg){ r, lg_mono_ns(), &lg_writers_done };
	for (int i = 0; i < n; i++)
		if (pthread_create(&tids[i], NULL, writer_main, &wr_arg))
			return -EAGAIN;
	return 0;
}

/* Shared by the LIST and GET threads: requests at a rate until stop. */
static void load_loop(struct lg_run *r, bool list)
{
	double rate = list ? r->o.list_rate : r->o.get_rate;
	struct lg_hist *hist = list ? &r->list_h : &r->get_h;
	struct lg_http h;
	char path[1024];
	uint64_t start = lg_mono_ns(), bytes = 0, errors = 0, n = 0;

	lg_http_init(&h, &r->target, 60000);
	for (long i = 0; !__atomic_load_n(&r->stop_writes, __ATOMIC_ACQUIRE);
	     i++) {
		sleep_until_mono(start + (uint64_t)((double)i * 1e9 / rate));
		if (__atomic_load_n(&r->stop_writes, __ATOMIC_ACQUIRE))
			break;
		const char *fixed = list ? r->o.list_path : r->o.get_path;
		if (fixed) {
			snprintf(path, sizeof(path), "%s", fixed);
		} else if (list) {
			snprintf(path, sizeof(path), "%s/namespaces/%s/%s",
				 r->res_path, r->o.ns[i % r->o.nns],
				 r->o.resource);
		} else {
			const struct lg_pod *p =
				&r->pods[mix((uint64_t)i) % (uint64_t)r->npods];
			snprintf(path, sizeof(path), "%s/namespaces/%s/%s/%s",
				 r->res_path, r->o.ns[p->ns], r->o.resource,
				 p->name);
		}
		uint64_t t = lg_mono_ns();
		int st = lg_http_do(&h, "GET", path, NULL, NULL, 0, NULL);
		uint64_t us = (lg_mono_ns() - t) / 1000;
		if (st != 200) {
			errors++;
			continue;
		}
		lg_hist_add(hist, us);
		bytes += h.body_bytes;
		n++;
	}
	lg_http_close(&h);
	lg_buf_free(&h.in);
	pthread_mutex_lock(&r->lock);
	if (list) {
		r->list_errors += errors;
		r->list_bytes += bytes;
		r->list_n += n;
	} else {
		r->get_errors += errors;
		r->get_n += n;
	}
	pthread_mutex_unlock(&r->lock);
}

void *lg_list_thread(void *arg)
{
	load_loop(arg, true);
	return NULL;
}

void *lg_get_thread(void *arg)
{
	load_loop(arg, false);
	return NULL;
}
