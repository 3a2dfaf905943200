/*
 * bench_json: what every library's adapter hands back to the driver.
 *
 * Each adapter parses one document, fills a struct meta per item (the
 * fields the cache keeps parsed: name, namespace, uid, resourceVersion,
 * labels, and for watch events the event type) and passes it to the sink
 * together with the item's bytes: its span in the input where the library
 * can tell it, or its re-serialization where it cannot.
 *
 * Each library's adapter is its own file (adapt_jsmn.c, adapt_yajl.c,
 * adapt_jansson.c, adapt_cjson.c, bench_jsonc.c) and the driver,
 * bench_json.c, reaches the libraries only through the functions below.
 * json-c has to be apart anyway: its header and jansson's declare the same
 * names (json_object_get, json_object_iter_next). The adapters' names
 * stay out of the libraries' own prefixes (jsmn_, yajl_, json_, cJSON_),
 * so no symbol can bind to the wrong definition.
 *
 * list and event parse one document and pass its items to the sink; they
 * and validate return 0 or -EINVAL (-ENOMEM where the library says so).
 * count_alloc(true) routes the library's allocations through the driver's
 * counting allocator, count_alloc(false) back to malloc.
 */
#ifndef BENCH_JSON_H
#define BENCH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_LABELS 32

struct strv {
	const char *p;
	size_t n;
};

struct meta {
	struct strv type, name, ns, uid, rv;
	unsigned nlabels;
	struct strv lk[MAX_LABELS], lv[MAX_LABELS];
};

struct sink {
	bool full;   /* hash every byte: the verification pass */
	bool reser;  /* DOM rows: re-serialize each item for its bytes */
	uint64_t h;  /* over the extracted fields */
	uint64_t hs; /* over the item bytes (spans or re-serialized) */
	uint64_t items, spans, span_bytes;
};

static inline uint64_t bench_hash(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h * 0x9e3779b97f4a7c15ULL + n;
}

static inline void sink_str(struct sink *s, unsigned tag, struct strv v)
{
	if (s->full)
		s->h = bench_hash(s->h ^ tag, v.p ? v.p : "", v.n);
	else
		s->h += v.n + tag;
}

static inline void sink_meta(struct sink *s, const struct meta *m)
{
	s->items++;
	sink_str(s, 1, m->type);
	sink_str(s, 2, m->name);
	sink_str(s, 3, m->ns);
	sink_str(s, 4, m->uid);
	sink_str(s, 5, m->rv);
	for (unsigned i = 0; i < m->nlabels; i++) {
		sink_str(s, 6, m->lk[i]);
		sink_str(s, 7, m->lv[i]);
	}
}

/* The bytes the cache would keep for one item. */
static inline void sink_span(struct sink *s, const char *p, size_t n)
{
	s->spans++;
	s->span_bytes += n;
	if (s->full)
		s->hs = bench_hash(s->hs, p, n);
}

static inline void meta_label(struct meta *m, const char *k, size_t kn,
			      const char *v, size_t vn)
{
	if (m->nlabels < MAX_LABELS) {
		m->lk[m->nlabels] = (struct strv){ k, kn };
		m->lv[m->nlabels++] = (struct strv){ v, vn };
	}
}

/* Called by each adapter right after its parse, before any free: lets the
 * memory pass read mallinfo2() at the high-water mark of a DOM. */
void probe_after_parse(void);

/* bench_json.c: the counting allocator behind count_alloc(true), and the
 * buffer the "+ser" rows of jansson and cJSON re-serialize items into
 * (BENCH_RBUF_CAP bytes, allocated before the first parse). */
void *count_malloc(size_t n);
void count_free(void *p);
void *count_realloc(void *p, size_t n);
#define BENCH_RBUF_CAP ((size_t)1 << 20)
extern char *bench_rbuf;

/* adapt_jsmn.c. The token array grows and is kept from call to call, as
 * a reflector would keep one. */
int jm_list(const char *p, size_t n, struct sink *s);
int jm_event(const char *p, size_t n, struct sink *s);
/* jm_validate takes what jsmn takes; jm_validate_root also insists on one
 * object spanning the whole input, as jm_list and jm_event do. */
int jm_validate(const char *p, size_t n);
int jm_validate_root(const char *p, size_t n);
/* Bytes of the tokens the last parse used; sizeof one token. */
size_t jm_tokens_bytes(void);
size_t jm_token_size(void);
/* Extracted strings so far that held a backslash (still escaped). */
unsigned jm_escaped(void);
/* Free the token array, so the next parse starts from an empty one. */
void jm_reset(void);

/* adapt_yajl.c */
int yj_list(const char *p, size_t n, struct sink *s);
int yj_event(const char *p, size_t n, struct sink *s);
int yj_validate(const char *p, size_t n);
void yj_count_alloc(bool on);
const char *yj_version(void);

/* adapt_jansson.c */
int ja_list(const char *p, size_t n, struct sink *s);
int ja_event(const char *p, size_t n, struct sink *s);
int ja_validate(const char *p, size_t n);
void ja_count_alloc(bool on);
/* Parse and print back compactly into out. 0, or -EINVAL with jansson's
 * message (empty if the output did not fit) in err. */
int ja_reserialize(const char *p, size_t n, char *out, size_t cap, char *err,
		   size_t errlen);
const char *ja_version(void);

/* adapt_cjson.c */
int cj_list(const char *p, size_t n, struct sink *s);
int cj_event(const char *p, size_t n, struct sink *s);
int cj_validate(const char *p, size_t n);
void cj_count_alloc(bool on);
/* Parse and print back unformatted into out (truncated to cap). */
int cj_reserialize(const char *p, size_t n, char *out, size_t cap);
const char *cj_version(void);

/* bench_jsonc.c: 0 or -EINVAL. */
int jsonc_list(const char *p, size_t n, struct sink *s);
int jsonc_event(const char *p, size_t n, struct sink *s);
int jsonc_validate(const char *p, size_t n);
/* Parse and keep the tree (memory pass); NULL on error. */
void *jsonc_parse_keep(const char *p, size_t n);
void jsonc_free(void *tree);
/* Parse and print back compactly into out (truncated to cap). */
int jsonc_reserialize(const char *p, size_t n, char *out, size_t cap);
const char *jsonc_version(void);

#endif
