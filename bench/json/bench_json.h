/*
 * bench_json: what every library's adapter hands back to the driver.
 *
 * Each adapter parses one document, fills a struct meta per item (the
 * fields the cache keeps parsed: name, namespace, uid, resourceVersion,
 * labels, and for watch events the event type) and passes it to the sink
 * together with the item's bytes: its span in the input where the library
 * can tell it, or its re-serialization where it cannot.
 *
 * json-c lives in its own file because its header and jansson's declare
 * the same names (json_object_get, json_object_iter_next).
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
	bool full;	/* hash every byte: the verification pass */
	bool reser;	/* DOM rows: re-serialize each item for its bytes */
	uint64_t h;	/* over the extracted fields */
	uint64_t hs;	/* over the item bytes (spans or re-serialized) */
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
