/*
 * fuzz pb_accept: protobuf Accept negotiation (proxy_pb_negotiate(), what
 * a GET, LIST or WATCH of the cache reads from its Accept header), for a
 * typed kind and for an untyped one (a custom resource).
 *
 * The input: the Accept value (cut at a NUL byte). An empty one is the
 * header absent too.
 *
 * Invariants beyond "no crash":
 *   - the answer is a known form; the metadata version is v1 or v1beta1,
 *     and v1 unless the form is metadata;
 *   - none, or an empty header, is PROXY_PB_NONE;
 *   - protobuf (an object, metadata or a refusal) only when the header
 *     names application/vnd.kubernetes.protobuf (any case); metadata
 *     only when it names PartialObjectMetadata and meta.k8s.io;
 *   - typed and untyped agree but where the kind's protobuf form
 *     decides: a typed kind is never refused, an untyped one never gets
 *     objects in protobuf; typed NONE or METADATA is the same untyped,
 *     and an untyped refusal is a typed PROXY_PB_OBJECT;
 *   - white space after a ',' or around a ';' changes nothing;
 *   - ",application/json" after it is a fallback: never a refusal,
 *     however many entries come before it.
 */
#include "proxy/protobuf.h"
#include "tests/fuzz/fuzz.h"

#include <strings.h>

static bool has_nocase(const char *s, const char *w)
{
	return strcasestr(s, w) != NULL;
}

static void check_one(const char *accept, bool typed, enum proxy_pb_form *form,
		      const char **ver)
{
	*ver = NULL;
	*form = proxy_pb_negotiate(accept, typed, ver);
	FUZZ_CHECK(*form == PROXY_PB_NONE || *form == PROXY_PB_OBJECT ||
		   *form == PROXY_PB_METADATA || *form == PROXY_PB_REFUSED);
	FUZZ_CHECK(*ver && (!strcmp(*ver, "v1") || !strcmp(*ver, "v1beta1")));
	if (*form != PROXY_PB_METADATA)
		FUZZ_CHECK(!strcmp(*ver, "v1"));
	if (!accept || !*accept)
		FUZZ_CHECK(*form == PROXY_PB_NONE);
	if (*form != PROXY_PB_NONE)
		FUZZ_CHECK(has_nocase(accept, PROXY_PB_MEDIA));
	if (*form == PROXY_PB_METADATA)
		FUZZ_CHECK(strstr(accept, "PartialObjectMetadata") &&
			   strstr(accept, "meta.k8s.io"));
	FUZZ_CHECK(typed ? *form != PROXY_PB_REFUSED :
			   *form != PROXY_PB_OBJECT);
}

/* accept with a space after each ',' and on each side of each ';'. */
static char *spaced(const char *accept)
{
	size_t n = strlen(accept);
	char *out = malloc(3 * n + 1), *w = out;
	FUZZ_CHECK(out);
	for (const char *r = accept; *r; r++) {
		if (*r == ';')
			*w++ = ' ';
		*w++ = *r;
		if (*r == ',' || *r == ';')
			*w++ = ' ';
	}
	*w = '\0';
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *accept = fuzz_cstr(data, size);
	if (!accept)
		return 0;
	enum proxy_pb_form t, u, f;
	const char *tv, *uv, *fv;
	check_one(accept, true, &t, &tv);
	check_one(accept, false, &u, &uv);
	if (t == PROXY_PB_NONE || t == PROXY_PB_METADATA)
		FUZZ_CHECK(u == t && !strcmp(uv, tv));
	if (u == PROXY_PB_REFUSED)
		FUZZ_CHECK(t == PROXY_PB_OBJECT);
	if (!*accept) {
		FUZZ_CHECK(proxy_pb_negotiate(NULL, true, &tv) ==
			   PROXY_PB_NONE);
		FUZZ_CHECK(!strcmp(tv, "v1"));
	}

	char *sp = spaced(accept);
	check_one(sp, true, &f, &fv);
	FUZZ_CHECK(f == t && !strcmp(fv, tv));
	check_one(sp, false, &f, &fv);
	FUZZ_CHECK(f == u && !strcmp(fv, uv));
	free(sp);

	size_t al = strlen(accept);
	char *more = malloc(al + sizeof(",application/json"));
	FUZZ_CHECK(more);
	memcpy(more, accept, al);
	memcpy(more + al, ",application/json", sizeof(",application/json"));
	check_one(more, false, &f, &fv);
	FUZZ_CHECK(f != PROXY_PB_REFUSED);
	free(more);
	free(accept);
	return 0;
}
