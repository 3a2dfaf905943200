/*
 * loadgen main: flags, the phases of a run, and the one-line JSON
 * summary (see loadgen.h for the shape of a run and for what every
 * watcher must see).
 *
 * Exit status: 0 when every watcher saw exactly what it had to, 1 on any
 * consistency violation, 2 when the run could not be set up.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "loadgen.h"

extern int lg_writers_done;

uint64_t lg_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t lg_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t lg_hash(const char *s, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t lg_ev_hash(uint64_t rv, int type, uint64_t key)
{
	uint64_t x = rv * 0x9e3779b97f4a7c15ULL ^ key ^ ((uint64_t)type << 56);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void lg_log(struct lg_run *r, const char *fmt, ...)
{
	va_list ap;
	if (r->o.quiet)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "loadgen: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: loadgen --target URL [flags]\n"
		   "  --target URL        server to watch, list and get (proxy "
		   "or apiserver);\n"
		   "                      repeat it to spread the watchers "
		   "over several\n"
		   "                      (LISTs and GETs go to the first)\n"
		   "  --writer URL        fake apiserver to write through (no "
		   "writes without it)\n"
		   "  --resource pods     resource (pods only)\n"
		   "  --watchers M        watch streams (0)\n"
		   "  --namespaces L|N    ns-0,ns-1,... or a count N for "
		   "ns-0..ns-N-1 (10)\n"
		   "  --selectors         spread watchers over namespaces and "
		   "label selectors\n"
		   "  --write-rate N      writes per second, 0 = as fast as "
		   "possible (10)\n"
		   "  --max-writes N      stop writing after N writes "
		   "(unbounded)\n"
		   "  --writers N         writer connections (2; 4 when "
		   "--write-rate 0)\n"
		   "  --list-rate N       LISTs per second on the target (0)\n"
		   "  --list-path P       LIST path (default a namespace's "
		   "pods, rotating)\n"
		   "  --get-rate N        GETs per second on the target (0)\n"
		   "  --get-path P        GET path (default a pooled pod, "
		   "random)\n"
		   "  --duration S        seconds of load (10)\n"
		   "  --drain S           seconds to wait for deliveries after "
		   "(10)\n"
		   "  --threads N         watch threads (1 up to 200 watchers, "
		   "else 2)\n"
		   "  --pool N            pods to patch, learnt from the "
		   "writer (1000)\n"
		   "  --create-pct P      percent of writes that create (5)\n"
		   "  --delete-pct P      percent of writes that delete (5)\n"
		   "  --self-test-drop N  each watcher ignores its Nth event "
		   "(checker test)\n"
		   "  --self-test-dup N   each watcher handles its Nth event "
		   "twice\n"
		   "  --quiet             no progress on stderr\n");
}

static int parse_ns(struct lg_opts *o, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*end && n > 0 && n <= 100000) {
		o->ns = calloc((size_t)n, sizeof(char *));
		for (long i = 0; o->ns && i < n; i++) {
			if (asprintf(&o->ns[i], "ns-%ld", i) < 0)
				return -ENOMEM;
		}
		o->nns = (int)n;
		return o->ns ? 0 : -ENOMEM;
	}
	char *copy = strdup(v), *p = copy, *item;
	o->nns = 0;
	o->ns = calloc(strlen(v) + 1, sizeof(char *));
	if (!copy || !o->ns)
		return -ENOMEM;
	while ((item = strsep(&p, ",")))
		if (*item)
			o->ns[o->nns++] = strdup(item);
	free(copy);
	return o->nns ? 0 : -EINVAL;
}

static int parse_args(int argc, char **argv, struct lg_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--selectors")) {
			o->selectors = true;
			continue;
		}
		if (!strcmp(a, "--quiet")) {
			o->quiet = true;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "loadgen: %s needs a value\n", a);
			return -EINVAL;
		}
		const char *v = argv[++i];
		char *end = NULL;
		double d = strtod(v, &end);
		bool num = end && !*end && d >= 0;
		if (!strcmp(a, "--target")) {
			if (o->ntargets == LG_MAX_TARGETS)
				goto bad;
			o->targets[o->ntargets++] = v;
			o->target = o->targets[0];
		} else if (!strcmp(a, "--writer"))
			o->writer = v;
		else if (!strcmp(a, "--resource"))
			o->resource = v;
		else if (!strcmp(a, "--namespaces")) {
			if (parse_ns(o, v))
				goto bad;
		} else if (!strcmp(a, "--list-path"))
			o->list_path = v;
		else if (!strcmp(a, "--get-path"))
			o->get_path = v;
		else if (!num)
			goto bad;
		else if (!strcmp(a, "--watchers"))
			o->watchers = (int)d;
		else if (!strcmp(a, "--write-rate"))
			o->write_rate = d;
		else if (!strcmp(a, "--max-writes"))
			o->max_writes = (long)d;
		else if (!strcmp(a, "--writers"))
			o->writer_conns = (int)d;
		else if (!strcmp(a, "--list-rate"))
			o->list_rate = d;
		else if (!strcmp(a, "--get-rate"))
			o->get_rate = d;
		else if (!strcmp(a, "--duration"))
			o->duration = d;
		else if (!strcmp(a, "--drain"))
			o->drain = d;
		else if (!strcmp(a, "--threads"))
			o->threads = (int)d;
		else if (!strcmp(a, "--pool"))
			o->pool = (int)d;
		else if (!strcmp(a, "--create-pct"))
			o->create_pct = (int)d;
		else if (!strcmp(a, "--delete-pct"))
			o->delete_pct = (int)d;
		else if (!strcmp(a, "--self-test-drop"))
			o->self_test_drop = (long)d;
		else if (!strcmp(a, "--self-test-dup"))
			o->self_test_dup = (long)d;
		else
			goto bad;
		continue;
bad:
		fprintf(stderr, "loadgen: bad flag: %s %s\n", a, v);
		usage(stderr);
		return -EINVAL;
	}
	if (!o->target) {
		fprintf(stderr, "loadgen: --target is required\n");
		return -EINVAL;
	}
	if (strcmp(o->resource, "pods")) {
		fprintf(stderr, "loadgen: only --resource pods is supported\n");
		return -EINVAL;
	}
	if (!o->ns && parse_ns(o, "10"))
		return -ENOMEM;
	if (o->create_pct + o->delete_pct > 100)
		return -EINVAL;
	if (!o->writer_conns)
		o->writer_conns = o->write_rate > 0 ? 2 : 4;
	if (!o->threads)
		o->threads = o->watchers > 200 ? 2 : 1;
	if (o->threads > o->watchers)
		o->threads = o->watchers ? o->watchers : 1;
	return 0;
}

/* Spread watchers over [all namespaces, ns-0, ...] x selector kinds. */
static void assign_filters(struct lg_run *r)
{
	int slots = r->o.nns + 1;
	for (int i = 0; i < r->o.watchers; i++) {
		struct lg_watcher *w = &r->w[i];
		char sel[256], *p = w->path;
		size_t cap = sizeof(w->path);
		w->id = i;
		w->fd = -1;
		w->filter.ns = -1;
		w->filter.sel = SEL_NONE;
		if (r->o.selectors) {
			w->filter.ns = i % slots - 1;
			w->filter.sel =
				(enum lg_sel_kind)((i / slots) % SEL_NKINDS);
			w->filter.a = (i * 7) % 100;
			w->filter.b = (i * 7 + 1) % 100;
			w->filter.c = (i * 13 + 50) % 100;
		}
		lg_filter_query(&w->filter, sel, sizeof(sel));
		int n = w->filter.ns >= 0 ?
				snprintf(p, cap, "%s/namespaces/%s/%s",
					 r->res_path, r->o.ns[w->filter.ns],
					 r->o.resource) :
				snprintf(p, cap, "%s/%s", r->res_path,
					 r->o.resource);
		snprintf(
			p + n, cap - (size_t)n,
			"?watch=true&allowWatchBookmarks=true&timeoutSeconds=%d%s%s",
			(int)(r->o.duration + r->o.drain) + 120,
			*sel ? "&labelSelector=" : "", sel);
		w->tgt = i % r->o.ntargets;
		w->start_rv = w->last_rv = w->progress_rv =
			r->target_rv[w->tgt];
	}
}

/* A target's current resourceVersion, from a LIST with limit=1. */
static int target_rv(struct lg_run *r, int k)
{
	struct lg_http h;
	struct lg_buf body = { 0 };
	char path[256];
	int st = 0;

	snprintf(path, sizeof(path), "%s/%s?limit=1", r->res_path,
		 r->o.resource);
	lg_http_init(&h, &r->targets[k], 30000);
	for (int i = 0; i < 300; i++) { /* 429 until the proxy synced */
		st = lg_http_do(&h, "GET", path, NULL, NULL, 0, &body);
		if (st != 429 && st != 503)
			break;
		usleep(100000);
	}
	if (st == 200) {
		size_t n;
		const char *v = lg_str_after(body.p, body.p + body.len,
					     "\"resourceVersion\":\"", &n);
		r->target_rv[k] = v ? strtoull(v, NULL, 10) : 0;
	}
	lg_http_close(&h);
	lg_buf_free(&h.in);
	lg_buf_free(&body);
	if (st != 200 || !r->target_rv[k]) {
		fprintf(stderr, "loadgen: LIST %s on %s: %d\n", path,
			r->o.targets[k], st);
		return -EIO;
	}
	return 0;
}

static void raise_nofile(void)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void hist_json(const char *name, const struct lg_hist *h, bool last)
{
	printf("\"%s\":{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f,\"n\":%llu}%s",
	       name, lg_hist_ms(h, 0.5), lg_hist_ms(h, 0.99), lg_hist_ms(h, 1),
	       (unsigned long long)h->n, last ? "" : ",");
}

/* Per target, when there are several: where its watchers started, what
 * they got, and how late; after the first, lag_ms: per event seen at
 * both, how much later its last delivery at this target came than at
 * the first (a child proxy's delay behind its parent). */
static void targets_json(const struct lg_run *r)
{
	printf(",\"targets\":[");
	for (int k = 0; k < r->o.ntargets; k++) {
		printf("%s{\"url\":\"%s\",\"start_rv\":%llu,\"deliveries\":%llu,",
		       k ? "," : "", r->o.targets[k],
		       (unsigned long long)r->target_rv[k],
		       (unsigned long long)r->tdeliveries[k]);
		hist_json("latency_ms", &r->tlat[k], k == 0);
		if (k)
			hist_json("lag_ms", &r->tlag[k], true);
		printf("}");
	}
	printf("]");
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	static struct lg_run run;
	struct lg_run *r = &run;
	pthread_t wtids[64], list_tid, get_tid;
	struct lg_violations v;

	r->o = (struct lg_opts){ .resource = "pods",
				 .write_rate = 10,
				 .duration = 10,
				 .drain = 10,
				 .pool = 1000,
				 .create_pct = 5,
				 .delete_pct = 5 };
	if (parse_args(argc, argv, &r->o))
		return 2;
	if (r->o.writer_conns > 64)
		r->o.writer_conns = 64;
	pthread_mutex_init(&r->lock, NULL);
	snprintf(r->res_path, sizeof(r->res_path), "/api/v1");
	raise_nofile();
	bool bad_url = r->o.writer && lg_addr_parse(r->o.writer, &r->writer);
	for (int k = 0; k < r->o.ntargets; k++)
		bad_url |= lg_addr_parse(r->o.targets[k], &r->targets[k]) != 0;
	r->target = r->targets[0];
	if (bad_url) {
		fprintf(stderr, "loadgen: bad URL (want http://HOST:PORT)\n");
		return 2;
	}
	r->tlat = calloc((size_t)r->o.ntargets, sizeof(*r->tlat));
	r->tdeliveries = calloc((size_t)r->o.ntargets, sizeof(uint64_t));
	r->tlast = calloc((size_t)r->o.ntargets, sizeof(*r->tlast));
	r->tlag = calloc((size_t)r->o.ntargets, sizeof(*r->tlag));
	if (!r->tlat || !r->tdeliveries || !r->tlast || !r->tlag)
		return 2;

	/* 1. the pool of pods to patch (and to GET) */
	bool need_pool = r->o.writer || (r->o.get_rate > 0 && !r->o.get_path);
	if (need_pool) {
		if (!r->o.writer)
			r->writer = r->target;
		if (lg_pool_load(r))
			return 2;
		lg_log(r, "pool: %d pods in %d namespaces", r->npods, r->o.nns);
	}
	/* 2. where the watchers start */
	for (int k = 0; r->o.watchers > 0 && k < r->o.ntargets; k++)
		if (target_rv(r, k))
			return 2;
	r->start_rv = r->rv_base = r->target_rv[0];
	for (int k = 1; k < r->o.ntargets; k++)
		if (r->target_rv[k] < r->rv_base)
			r->rv_base = r->target_rv[k];
	/* 3. the watchers */
	r->w = calloc((size_t)r->o.watchers + 1, sizeof(*r->w));
	if (!r->w)
		return 2;
	assign_filters(r);
	if (r->o.watchers > 0) {
		if (lg_watch_start(r, NULL, r->o.threads))
			return 2;
		uint64_t deadline = lg_mono_ns() + 30000000000ull;
		int up = 0;
		while (lg_mono_ns() < deadline) {
			up = 0;
			for (int i = 0; i < r->o.watchers; i++)
				up += __atomic_load_n(&r->w[i].connected,
						      __ATOMIC_ACQUIRE);
			if (up == r->o.watchers)
				break;
			sleep_ms(10);
		}
		lg_log(r, "%d/%d watchers streaming from resourceVersion %llu",
		       up, r->o.watchers, (unsigned long long)r->start_rv);
	}

	/* 4. load */
	uint64_t t0 = lg_mono_ns();
	int nwriters = r->o.writer ? r->o.writer_conns : 0;
	if (nwriters && lg_writers_run(r, wtids, nwriters))
		return 2;
	if (r->o.list_rate > 0)
		pthread_create(&list_tid, NULL, lg_list_thread, r);
	if (r->o.get_rate > 0)
		pthread_create(&get_tid, NULL, lg_get_thread, r);
	uint64_t until = t0 + (uint64_t)(r->o.duration * 1e9);
	while (lg_mono_ns() < until &&
	       !(nwriters && r->o.max_writes &&
		 __atomic_load_n(&lg_writers_done, __ATOMIC_ACQUIRE) ==
			 nwriters))
		sleep_ms(20);
	__atomic_store_n(&r->stop_writes, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < nwriters; i++)
		pthread_join(wtids[i], NULL);
	if (r->o.list_rate > 0)
		pthread_join(list_tid, NULL);
	if (r->o.get_rate > 0)
		pthread_join(get_tid, NULL);
	double load_s = (double)(lg_mono_ns() - t0) / 1e9;
	lg_log(r, "%zu writes in %.1f s, draining", r->nwrites, load_s);

	/* 5. drain: until every watcher reached its last expected RV */
	uint64_t *last = calloc((size_t)r->o.watchers + 1, sizeof(uint64_t));
	if (!last)
		return 2;
	lg_check_expect(r, last);
	uint64_t drain_until = lg_mono_ns() + (uint64_t)(r->o.drain * 1e9);
	while (lg_mono_ns() < drain_until) {
		int behind = 0;
		for (int i = 0; i < r->o.watchers; i++)
			if (!__atomic_load_n(&r->w[i].done, __ATOMIC_ACQUIRE) &&
			    __atomic_load_n(&r->w[i].progress_rv,
					    __ATOMIC_ACQUIRE) < last[i])
				behind++;
		if (!behind)
			break;
		sleep_ms(10);
	}
	__atomic_store_n(&r->stop_all, 1, __ATOMIC_RELEASE);
	if (r->o.watchers > 0)
		lg_watch_join(r, NULL, r->o.threads);
	lg_check(r, &v);
	if (r->o.ntargets > 1)
		lg_check_lag(r);
	lg_check_last(r);

	uint64_t last_recv = 0;
	int reconnects = 0;
	for (int i = 0; i < r->o.watchers; i++) {
		if (r->w[i].last_recv_ns > last_recv)
			last_recv = r->w[i].last_recv_ns;
		reconnects += r->w[i].reconnects;
	}
	double span = r->first_write_ns && last_recv > r->first_write_ns ?
			      (double)(last_recv - r->first_write_ns) / 1e9 :
			      load_s;
	uint64_t errors = r->write_errors + r->list_errors + r->get_errors +
			  r->watch_errors;
	uint64_t bad = v.missed + v.duplicated + v.out_of_order + v.unexpected +
		       v.mismatched;

	printf("{\"deliveries_per_s\":%.1f,",
	       span > 0 ? r->deliveries / span : 0);
	hist_json("latency_ms", &r->lat, false);
	hist_json("last_ms", &r->last_h, false);
	hist_json("list_ms", &r->list_h, false);
	hist_json("get_ms", &r->get_h, false);
	printf("\"errors\":%llu,\"violations\":{\"missed\":%llu,"
	       "\"duplicated\":%llu,\"out_of_order\":%llu,\"unexpected\":%llu,"
	       "\"mismatched\":%llu},\"expected\":%llu,\"expired\":%llu,"
	       "\"watchers\":%d,\"writes\":%zu,\"write_errors\":%llu,"
	       "\"write_rate\":%.1f,\"deliveries\":%llu,\"delivery_span_s\":%."
	       "3f,"
	       "\"reconnects\":%d,\"lists\":%llu,\"list_bytes\":%llu,"
	       "\"list_errors\":%llu,\"gets\":%llu,\"get_errors\":%llu,"
	       "\"watch_errors\":%llu,\"start_rv\":%llu,\"duration_s\":%.2f",
	       (unsigned long long)errors, (unsigned long long)v.missed,
	       (unsigned long long)v.duplicated,
	       (unsigned long long)v.out_of_order,
	       (unsigned long long)v.unexpected,
	       (unsigned long long)v.mismatched, (unsigned long long)v.expected,
	       (unsigned long long)v.expired, r->o.watchers, r->nwrites,
	       (unsigned long long)r->write_errors,
	       load_s > 0 ? (double)r->nwrites / load_s : 0,
	       (unsigned long long)r->deliveries, span, reconnects,
	       (unsigned long long)r->list_n, (unsigned long long)r->list_bytes,
	       (unsigned long long)r->list_errors, (unsigned long long)r->get_n,
	       (unsigned long long)r->get_errors,
	       (unsigned long long)r->watch_errors,
	       (unsigned long long)r->start_rv, load_s);
	if (r->o.ntargets > 1)
		targets_json(r);
	printf("}\n");
	fflush(stdout);
	free(last);
	return bad ? 1 : 0;
}
