/*
 * bench_json: which JSON library should the cache use to ingest upstream
 * LIST pages and watch events?
 *
 * One program runs every candidate side by side on the same bytes:
 * jsmn (tokenizer), yajl (SAX), json-c, jansson and cJSON (DOMs). The
 * workload is built in memory from the fake apiserver's seeded pods:
 *   (a) a PodList page of 500 pods, parsed LIST_REPS times per round;
 *   (b) 10,000 watch event lines {"type":"MODIFIED","object":<pod>},
 *       each parsed on its own, as a watch decoder would.
 * For every item each adapter validates, extracts name, namespace, uid,
 * resourceVersion and the labels, and gets the item's bytes: its span in
 * the input where the library can tell it (jsmn, yajl), or, in the "+ser"
 * rows, by re-serializing the item (json-c, jansson, cJSON cannot say
 * where an item began). Rounds are interleaved and rotated; the table
 * shows the median round.
 *
 * A verification pass first checks that every adapter extracted the same
 * fields and that the spans are the exact input bytes. A memory pass then
 * measures the peak the library allocated while parsing, through its
 * allocator hook (jansson, cJSON, yajl), mallinfo2() (json-c, which has
 * none) or the token array (jsmn). Last, a table of malformed inputs
 * shows what each parser accepts.
 *
 * This file is the driver: workload, verification, timing, memory and
 * the tables. Each library sits behind its adapter (adapt_jsmn.c,
 * adapt_yajl.c, bench_jsonc.c, adapt_jansson.c, adapt_cjson.c), whose
 * functions bench_json.h declares.
 *
 *   usage: bench_json [rounds]       (default 5, about 45 s on 2 cores)
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_json.h"
#include "tests/fake-apiserver/fake_seed.h"

#define LIST_ITEMS 500
#define LIST_REPS 5
#define EVENTS 10000
#define NAMESPACES 20
#define MEM_EVENTS 1000
#define VERIFY_EVENTS 2000

/* ---- workload ---------------------------------------------------------- */

struct workload {
	struct buf list;	 /* one PodList page */
	struct buf events;	 /* EVENTS lines, '\n'-terminated */
	size_t *ev_off, *ev_len; /* each line, newline excluded */
	size_t ev_bytes;
	uint64_t list_hs, events_hs; /* hash of the items' exact bytes;
				 * events: the first VERIFY_EVENTS */
};

static int build_workload(struct workload *w)
{
	struct buf pod = BUF_INIT;
	char ns[32];
	struct sink s = { .full = true };

	buf_adds(&w->list, "{\"kind\":\"PodList\",\"apiVersion\":\"v1\","
			   "\"metadata\":{\"resourceVersion\":\"12345\"},"
			   "\"items\":[");
	for (unsigned i = 0; i < LIST_ITEMS; i++) {
		buf_reset(&pod);
		fake_seed_ns_name(i, NAMESPACES, ns, sizeof(ns));
		fake_seed_pod(&pod, i, ns, 10000 + i);
		if (i)
			buf_addc(&w->list, ',');
		buf_add(&w->list, pod.p, pod.len);
		sink_span(&s, pod.p, pod.len);
	}
	buf_adds(&w->list, "]}");
	w->list_hs = s.hs;

	w->ev_off = calloc(EVENTS, sizeof(*w->ev_off));
	w->ev_len = calloc(EVENTS, sizeof(*w->ev_len));
	if (!w->ev_off || !w->ev_len)
		return -ENOMEM;
	s.hs = 0;
	for (unsigned i = 0; i < EVENTS; i++) {
		buf_reset(&pod);
		fake_seed_ns_name(i, NAMESPACES, ns, sizeof(ns));
		fake_seed_pod(&pod, i, ns, 20000 + i);
		w->ev_off[i] = w->events.len;
		buf_adds(&w->events, "{\"type\":\"MODIFIED\",\"object\":");
		buf_add(&w->events, pod.p, pod.len);
		buf_addc(&w->events, '}');
		w->ev_len[i] = w->events.len - w->ev_off[i];
		w->ev_bytes += w->ev_len[i];
		buf_addc(&w->events, '\n');
		if (i < VERIFY_EVENTS)
			sink_span(&s, pod.p, pod.len);
	}
	w->events_hs = s.hs;
	buf_free(&pod);
	return buf_ok(&w->list) && buf_ok(&w->events) ? 0 : -ENOMEM;
}

/* ---- memory accounting ------------------------------------------------- */

/* Live and peak bytes requested through an allocator hook. A 16-byte
 * header remembers each block's size. */
struct memctr {
	size_t live, peak;
};
static struct memctr mc;

void *count_malloc(size_t n)
{
	size_t *h = malloc(n + 16);

	if (!h)
		return NULL;
	h[0] = n;
	mc.live += n;
	if (mc.live > mc.peak)
		mc.peak = mc.live;
	return (char *)h + 16;
}

void count_free(void *p)
{
	if (!p)
		return;
	size_t *h = (size_t *)((char *)p - 16);
	mc.live -= h[0];
	free(h);
}

void *count_realloc(void *p, size_t n)
{
	if (!p)
		return count_malloc(n);
	size_t *h = (size_t *)((char *)p - 16), old = h[0];
	size_t *nh = realloc(h, n + 16);
	if (!nh)
		return NULL;
	nh[0] = n;
	mc.live = mc.live - old + n;
	if (mc.live > mc.peak)
		mc.peak = mc.live;
	return (char *)nh + 16;
}


static bool probing;
static size_t mi_base, mi_at_parse;

static size_t mallinfo_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

void probe_after_parse(void)
{
	if (probing)
		mi_at_parse = mallinfo_used() - mi_base;
}

char *bench_rbuf; /* see bench_json.h */

/* ---- the table of candidates ------------------------------------------- */

enum memkind {
	MEM_TOKENS,
	MEM_HOOK_YAJL,
	MEM_HOOK_JANSSON,
	MEM_HOOK_CJSON,
	MEM_MALLINFO
};

struct row {
	const char *name;
	const char *how; /* how the row gets each item's bytes */
	int (*list)(const char *p, size_t n, struct sink *s);
	int (*event)(const char *p, size_t n, struct sink *s);
	bool reser;
	enum memkind mem;
	/* results */
	double list_mbs[64], ev_mbs[64];
	double mem_list, mem_ev, mi_list; /* per input byte */
	double abs_list, abs_ev;	  /* bytes: LIST page, mean per event */
	struct sink vl, ve;		  /* verification pass */
};

static struct row rows[] = {
#define ROW(n, h, l, e, r, m)                                           \
	{                                                               \
		.name = n, .how = h, .list = l, .event = e, .reser = r, \
		.mem = m                                                \
	}
	ROW("jsmn", "span: token start/end", jm_list, jm_event, false,
	    MEM_TOKENS),
	ROW("yajl", "span: bytes_consumed in callbacks", yj_list, yj_event,
	    false, MEM_HOOK_YAJL),
	ROW("json-c", "none", jsonc_list, jsonc_event, false, MEM_MALLINFO),
	ROW("json-c +ser", "re-serialize item", jsonc_list, jsonc_event, true,
	    MEM_MALLINFO),
	ROW("jansson", "none", ja_list, ja_event, false, MEM_HOOK_JANSSON),
	ROW("jansson +ser", "re-serialize item", ja_list, ja_event, true,
	    MEM_HOOK_JANSSON),
	ROW("cJSON", "none", cj_list, cj_event, false, MEM_HOOK_CJSON),
	ROW("cJSON +ser", "re-serialize item", cj_list, cj_event, true,
	    MEM_HOOK_CJSON),
#undef ROW
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	double tmp[64];
	memcpy(tmp, v, (size_t)n * sizeof(*v));
	qsort(tmp, (size_t)n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static void die(const char *what, const char *lib)
{
	fprintf(stderr, "bench_json: %s failed for %s\n", what, lib);
	exit(1);
}

static void run_events(struct row *r, const struct workload *w, struct sink *s,
		       unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		if (r->event(w->events.p + w->ev_off[i], w->ev_len[i], s))
			die("watch event parse", r->name);
}

static void verify(const struct workload *w)
{
	for (size_t i = 0; i < NROWS; i++) {
		struct row *r = &rows[i];
		r->vl = (struct sink){ .full = true, .reser = r->reser };
		r->ve = (struct sink){ .full = true, .reser = r->reser };
		if (r->list(w->list.p, w->list.len, &r->vl))
			die("LIST parse", r->name);
		run_events(r, w, &r->ve, VERIFY_EVENTS);
		if (r->vl.items != LIST_ITEMS || r->ve.items != VERIFY_EVENTS)
			die("item count", r->name);
		if (r->vl.h != rows[0].vl.h || r->ve.h != rows[0].ve.h)
			die("extracted fields differ from jsmn's", r->name);
	}
	if (jm_escaped())
		printf("note: %u extracted strings held escapes (jsmn would "
		       "have to unescape them)\n",
		       jm_escaped());
}

static const char *span_verdict(const struct row *r, const struct workload *w)
{
	if (r->vl.spans == 0)
		return "-";
	if (r->vl.hs == w->list_hs && r->ve.hs == w->events_hs)
		return r->reser ? "identical" : "exact";
	return "differ";
}

/* Peak bytes per input byte for one LIST page and for MEM_EVENTS events. */
static void measure_memory(struct row *r, const struct workload *w)
{
	struct sink s = { 0 };
	double peak_sum = 0, bytes = 0;

	if (r->mem == MEM_HOOK_JANSSON)
		ja_count_alloc(true);
	if (r->mem == MEM_HOOK_CJSON)
		cj_count_alloc(true);
	if (r->mem == MEM_HOOK_YAJL)
		yj_count_alloc(true);
	if (r->mem == MEM_TOKENS) /* start from an empty token array */
		jm_reset();

	probing = true;
	mc = (struct memctr){ 0 };
	mi_base = mallinfo_used();
	mi_at_parse = 0;
	if (r->list(w->list.p, w->list.len, &s))
		die("LIST parse", r->name);
	if (r->mem == MEM_TOKENS) {
		r->mem_list = (double)jm_tokens_bytes();
		r->mi_list = (double)mi_at_parse; /* the array, grown */
	} else if (r->mem == MEM_MALLINFO) {
		r->mem_list = r->mi_list = (double)mi_at_parse;
	} else {
		r->mem_list = (double)mc.peak;
		r->mi_list = (double)mi_at_parse;
	}
	r->abs_list = r->mem_list;
	r->mem_list /= (double)w->list.len;
	r->mi_list /= (double)w->list.len;
	/* mallinfo2() walks the free lists: far too slow once per event */
	probing = false;

	if (r->mem == MEM_MALLINFO) {
		/* No hook: keep MEM_EVENTS trees alive at once so the
		 * allocator's caches do not hide what one tree costs. */
		void **keep = calloc(MEM_EVENTS, sizeof(*keep));
		size_t base = mallinfo_used();
		for (unsigned i = 0; i < MEM_EVENTS; i++) {
			keep[i] = jsonc_parse_keep(w->events.p + w->ev_off[i],
						   w->ev_len[i]);
			bytes += (double)w->ev_len[i];
		}
		peak_sum = (double)(mallinfo_used() - base);
		for (unsigned i = 0; i < MEM_EVENTS; i++)
			jsonc_free(keep[i]);
		free(keep);
	} else {
		for (unsigned i = 0; i < MEM_EVENTS; i++) {
			mc.peak = mc.live;
			size_t before = mc.live;
			if (r->event(w->events.p + w->ev_off[i], w->ev_len[i],
				     &s))
				die("watch event parse", r->name);
			peak_sum += r->mem == MEM_TOKENS ?
					    (double)jm_tokens_bytes() :
					    (double)(mc.peak - before);
			bytes += (double)w->ev_len[i];
		}
	}
	r->mem_ev = peak_sum / bytes;
	r->abs_ev = peak_sum / MEM_EVENTS;

	ja_count_alloc(false);
	cj_count_alloc(false);
	yj_count_alloc(false);
}

/* ---- malformed inputs -------------------------------------------------- */

struct bad {
	const char *what;
	const char *text;
	size_t len; /* 0: strlen */
};

static const struct bad bads[] = {
	{ "trailing comma in object", "{\"a\":1,}", 0 },
	{ "trailing comma in array", "{\"a\":[1,2,]}", 0 },
	{ "leading comma", "{,\"a\":1}", 0 },
	{ "double comma", "{\"a\":1,,\"b\":2}", 0 },
	{ "missing comma", "{\"a\":1 \"b\":2}", 0 },
	{ "missing comma in array", "{\"a\":[1 2]}", 0 },
	{ "missing colon", "{\"a\" 1}", 0 },
	{ "key without value", "{\"a\"}", 0 },
	{ "colon without value", "{\"a\":}", 0 },
	{ "colon in array", "{\"a\":[1:2]}", 0 },
	{ "bad literal tru", "{\"a\":tru}", 0 },
	{ "bad literal nulll", "{\"a\":nulll}", 0 },
	{ "number with leading zero", "{\"a\":01}", 0 },
	{ "number 1.", "{\"a\":1.}", 0 },
	{ "number -", "{\"a\":-}", 0 },
	{ "number 1e", "{\"a\":1e}", 0 },
	{ "number +1", "{\"a\":+1}", 0 },
	{ "number 1x2", "{\"a\":1x2}", 0 },
	{ "raw tab in string", "{\"a\":\"x\ty\"}", 0 },
	{ "raw newline in string", "{\"a\":\"x\ny\"}", 0 },
	{ "invalid UTF-8 in string", "{\"a\":\"\xff\xfe\"}", 0 },
	{ "bad escape \\x", "{\"a\":\"\\x41\"}", 0 },
	{ "two top-level values", "{\"a\":1} {\"b\":2}", 0 },
	{ "trailing garbage", "{\"a\":1}x", 0 },
	{ "extra closing brace", "{\"a\":1}}", 0 },
	{ "mismatched bracket", "{\"a\":[1}", 0 },
	{ "truncated", "{\"a\":{\"b\":1}", 0 },
	{ "NUL then garbage", "{\"a\":1}\0garbage", 15 },
	{ "non-object root (valid JSON)", "[1,2]", 0 },
	{ "duplicate key (valid JSON)", "{\"a\":1,\"a\":2}", 0 },
};

struct validator {
	const char *name;
	int (*fn)(const char *p, size_t n);
};

static const struct validator validators[] = {
	{ "jsmn", jm_validate },    { "jsmn+root", jm_validate_root },
	{ "yajl", yj_validate },    { "json-c", jsonc_validate },
	{ "jansson", ja_validate }, { "cJSON", cj_validate },
};

static void malformed_table(void)
{
	size_t nv = sizeof(validators) / sizeof(validators[0]);

	printf("\nMalformed input: ACCEPT = parsed without error "
	       "(jsmn+root: also one object spanning the whole input)\n");
	printf("%-30s", "input");
	for (size_t v = 0; v < nv; v++)
		printf(" %-9s", validators[v].name);
	printf("\n");
	for (size_t b = 0; b < sizeof(bads) / sizeof(bads[0]); b++) {
		size_t n = bads[b].len ? bads[b].len : strlen(bads[b].text);
		/* a private copy, so no parser can read past its length */
		char *p = malloc(n + 1);
		memcpy(p, bads[b].text, n);
		p[n] = '\0';
		printf("%-30s", bads[b].what);
		for (size_t v = 0; v < nv; v++)
			printf(" %-9s",
			       validators[v].fn(p, n) ? "-" : "ACCEPT");
		printf("\n");
		free(p);
	}
}

/* What a DOM gives back when asked for an item's bytes: the apiserver's
 * Go encoder writes <, > and & as \u003c, \u003e, \u0026. */
static void reser_table(void)
{
	static const char *const ins[] = {
		"{\"a\":\"\\u003cb\\u003e \\u0026\"}",
		"{\"n\":1.0,\"e\":1e3}",
		"{\"big\":18446744073709551615}",
	};
	char out[256];

	printf("\nRe-serialization fidelity (DOM libraries; '!' = bytes "
	       "changed)\n");
	for (size_t i = 0; i < sizeof(ins) / sizeof(ins[0]); i++) {
		const char *in = ins[i];
		size_t n = strlen(in);
		char err[160]; /* jansson's JSON_ERROR_TEXT_LENGTH */

		printf("  input    %s\n", in);
		if (jsonc_reserialize(in, n, out, sizeof(out)) == 0)
			printf("  json-c  %s%s\n", strcmp(out, in) ? "!" : " ",
			       out);
		else
			printf("  json-c   parse error\n");
		if (ja_reserialize(in, n, out, sizeof(out), err, sizeof(err)) ==
		    0)
			printf("  jansson %s%s\n", strcmp(out, in) ? "!" : " ",
			       out);
		else
			printf("  jansson  parse error: %s\n", err);
		if (cj_reserialize(in, n, out, sizeof(out)) == 0)
			printf("  cJSON   %s%s\n", strcmp(out, in) ? "!" : " ",
			       out);
		else
			printf("  cJSON    parse error\n");
	}
}

/* ---- main -------------------------------------------------------------- */

static void machine(void)
{
	char line[256], model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	unsigned ncpu = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':'))
			snprintf(model, sizeof(model), "%s",
				 strchr(line, ':') + 2);
		if (!strncmp(line, "processor", 9))
			ncpu++;
	}
	if (f)
		fclose(f);
	model[strcspn(model, "\n")] = '\0';
	printf("machine: %s, %u CPUs; compiler: gcc %s -O2\n", model, ncpu,
	       __VERSION__);
	printf("libraries: jsmn (header, Debian libjsmn-dev), yajl %s, "
	       "json-c %s, jansson %s, cJSON %s\n",
	       yj_version(), jsonc_version(), ja_version(), cj_version());
}

int main(int argc, char **argv)
{
	struct workload w = { BUF_INIT, BUF_INIT, NULL, NULL, 0, 0, 0 };
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	double t0 = now();

	if (rounds < 1 || rounds > 64)
		rounds = 5;
	bench_rbuf = malloc(BENCH_RBUF_CAP);
	if (!bench_rbuf || build_workload(&w)) {
		fprintf(stderr, "bench_json: out of memory\n");
		return 1;
	}
	machine();
	printf("workload: (a) PodList page, %u pods, %zu bytes, parsed %u "
	       "times a round; (b) %u watch events, %zu bytes (avg %zu B)\n",
	       LIST_ITEMS, w.list.len, LIST_REPS, EVENTS, w.ev_bytes,
	       w.ev_bytes / EVENTS);

	verify(&w);
	double t_verify = now();

	for (int round = 0; round < rounds; round++) {
		for (size_t j = 0; j < NROWS; j++) {
			/* rotate the order so no row always runs first */
			struct row *r = &rows[(j + (size_t)round) % NROWS];
			struct sink s = { .reser = r->reser };
			double a = now();
			for (int k = 0; k < LIST_REPS; k++)
				if (r->list(w.list.p, w.list.len, &s))
					die("LIST parse", r->name);
			double b = now();
			run_events(r, &w, &s, EVENTS);
			double c = now();
			r->list_mbs[round] =
				(double)w.list.len * LIST_REPS / (b - a) / 1e6;
			r->ev_mbs[round] = (double)w.ev_bytes / (c - b) / 1e6;
		}
	}

	double t_rounds = now();
	for (size_t j = 0; j < NROWS; j++)
		measure_memory(&rows[j], &w);
	double t_mem = now();

	double best_l = 0, best_e = 0, ml[NROWS], me[NROWS];
	for (size_t j = 0; j < NROWS; j++) {
		ml[j] = median(rows[j].list_mbs, rounds);
		me[j] = median(rows[j].ev_mbs, rounds);
		if (ml[j] > best_l)
			best_l = ml[j];
		if (me[j] > best_e)
			best_e = me[j];
	}

	printf("\nMedian of %d interleaved rounds. MB = 10^6 bytes of input. "
	       "x = speed relative to the fastest row (1.00 = fastest).\n"
	       "mem = peak bytes the library allocated while parsing / input "
	       "bytes; mallinfo = live heap after parse / input (LIST).\n\n",
	       rounds);
	printf("%-13s %9s %5s %9s %5s %8s %8s %9s %9s %8s  %-9s %s\n",
	       "library", "LIST MB/s", "x", "watch MB/s", "x", "mem LIST",
	       "mem evt", "mallinfo", "peak LIST", "peak evt", "bytes",
	       "how the item bytes are had");
	for (size_t j = 0; j < NROWS; j++) {
		struct row *r = &rows[j];
		printf("%-13s %9.0f %5.2f %10.0f %5.2f %7.2fx %7.2fx %8.2fx "
		       "%7.1f MB %5.1f KB  %-9s %s\n",
		       r->name, ml[j], ml[j] / best_l, me[j], me[j] / best_e,
		       r->mem_list, r->mem_ev, r->mi_list, r->abs_list / 1e6,
		       r->abs_ev / 1e3, span_verdict(r, &w), r->how);
	}
	printf("\nbytes: exact = the span is the item's input bytes; "
	       "identical = re-serialization gave the input bytes back; "
	       "- = not obtainable.\n"
	       "mem: jsmn = tokens used x %zu B; yajl, jansson, cJSON = "
	       "allocator hooks; json-c = mallinfo2() (chunk sizes, "
	       "no hook).\n",
	       jm_token_size());

	malformed_table();
	reser_table();
	printf("\nrun time %.1f s: setup and verification %.1f s, timed "
	       "rounds %.1f s, memory pass %.1f s\n",
	       now() - t0, t_verify - t0, t_rounds - t_verify,
	       t_mem - t_rounds);
	jm_reset();
	free(bench_rbuf);
	free(w.ev_off);
	free(w.ev_len);
	buf_free(&w.list);
	buf_free(&w.events);
	return 0;
}
