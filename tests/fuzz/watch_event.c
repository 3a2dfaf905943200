/*
 * fuzz watch_event: one line of a watch stream, decoded as the reflector
 * decodes it (cache_refl_event_decode) and, for an ADDED, MODIFIED or DELETED
 * event, its object parsed in place as watch_line() parses it, with and
 * without --strip-managed-fields.
 *
 * Invariants beyond "no crash":
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
#include "cache/reflector_int.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cache_kind *kind = cache_kind_find("", "pods");
	struct json_doc d = JSON_DOC_INIT;
	struct cache_refl_event ev;
	char err[160];
	int rc = cache_refl_event_decode(&d, (const char *)data, size, &ev, err,
					 sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc) {
		FUZZ_CHECK(err[0]);
		goto out;
	}
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
		if (!o)
			continue;
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
	return 0;
}
