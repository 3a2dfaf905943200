/*
 * fuzz watch_event: one line of a watch stream, decoded as the reflector
 * decodes it (cache_watcher_event_decode, with the pods shape that skips what
 * the cache does not read) and, for an ADDED, MODIFIED or DELETED event,
 * its object parsed in place as watch_line() parses it, with and without
 * --strip-managed-fields.
 *
 * Invariants beyond "no crash":
 *   - the shaped decode accepts and refuses exactly what the full one
 *     does, with the same message, and reads the same event;
 *   - the object it keeps is the full decode's, byte for byte, with the
 *     same key, labels and selectable fields;
 *   - a decoded event has a known type, and an object token that is a
 *     JSON object;
 *   - an ERROR's message is a NUL-terminated string of its buffer;
 *   - the object the cache would keep carries the event's resourceVersion,
 *     is valid JSON, and parses again to the same key.
 */
#include <stdbool.h>

#include "cache/json.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/watcher_test.h"
#include "cache/shape.h"
#include "tests/fuzz/fuzz.h"

static bool str_same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The shaped object is the full one: bytes, key, labels, fields. */
static void same_obj(const struct cache_kind *kind, const struct cache_obj *a,
		     const struct cache_obj *b)
{
	FUZZ_CHECK(a->len == b->len && !memcmp(a->json, b->json, a->len));
	FUZZ_CHECK(a->rv == b->rv && !strcmp(a->name, b->name) &&
		   !strcmp(a->ns, b->ns) && !strcmp(a->uid, b->uid) &&
		   a->created == b->created && a->nlabels == b->nlabels);
	for (uint32_t i = 0; i < a->nlabels; i++)
		FUZZ_CHECK(!strcmp(a->labels[i].key, b->labels[i].key) &&
			   !strcmp(a->labels[i].val, b->labels[i].val));
	for (int f = 0; kind->fields[f]; f++)
		FUZZ_CHECK(str_same(a->fields[f], b->fields[f]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cache_shape *shape;
	const struct cache_kind *kind = cache_kind_find("", "pods");
	if (!shape)
		shape = cache_shape_new(kind);
	struct json_doc d = JSON_DOC_INIT, full = JSON_DOC_INIT;
	struct cache_watcher_event ev, fev;
	char err[160], ferr[160];
	int rc = cache_watcher_event_decode(&d, (const char *)data, size,
					    cache_shape_event(shape), &ev, err,
					    sizeof(err));
	int frc = cache_watcher_event_decode(&full, (const char *)data, size,
					     NULL, &fev, ferr, sizeof(ferr));
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	FUZZ_CHECK(rc == frc);
	if (rc) {
		FUZZ_CHECK(err[0] && !strcmp(err, ferr));
		goto out;
	}
	FUZZ_CHECK(ev.type == fev.type && ev.rv == fev.rv &&
		   ev.code == fev.code && !strcmp(ev.msg, fev.msg));
	FUZZ_CHECK(ev.type >= REFL_EV_ADDED && ev.type <= REFL_EV_ERROR);
	FUZZ_CHECK(ev.obj > 0 && ev.obj < d.ntok &&
		   json_type(&d, ev.obj) == JSMN_OBJECT);
	if (ev.type == REFL_EV_ERROR) {
		FUZZ_CHECK(memchr(ev.msg, '\0', sizeof(ev.msg)));
		goto out;
	}
	if (ev.type == REFL_EV_BOOKMARK)
		goto out;
	for (int strip = 0; strip < 2; strip++) {
		struct cache_obj *o = cache_obj_from_doc(
			kind, &d, ev.obj, strip, err, sizeof(err));
		struct cache_obj *fo = cache_obj_from_doc(
			kind, &full, fev.obj, strip, ferr, sizeof(ferr));
		FUZZ_CHECK(!o == !fo);
		if (!o) {
			FUZZ_CHECK(!strcmp(err, ferr));
			continue;
		}
		same_obj(kind, o, fo);
		cache_obj_put(fo);
		FUZZ_CHECK(o->rv == ev.rv);
		/* a kept object has a name a key can hold (no NUL cuts it) */
		FUZZ_CHECK(o->name[0] &&
			   !memchr(o->name, '/', strlen(o->name)));
		struct cache_obj *again = cache_obj_parse(
			kind, o->json, o->len, false, err, sizeof(err));
		FUZZ_CHECK(again);
		FUZZ_CHECK(again->rv == o->rv &&
			   !strcmp(again->name, o->name) &&
			   !strcmp(again->ns, o->ns));
		cache_obj_put(again);
		cache_obj_put(o);
	}
out:
	json_doc_free(&d);
	json_doc_free(&full);
	return 0;
}
