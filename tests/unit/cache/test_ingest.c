/*
 * test_ingest: what the cache does with hostile upstream bytes. JSON
 * nesting up to the apiserver's limit and no further, in linear time and
 * constant stack; invalid UTF-8 replaced by U+FFFD as the apiserver's
 * decoder does; keys no apiserver stores refused with their reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "cache/obj.h"
#include "config/limits.h"
#include "check.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* '[' * depth then ']' * depth, into a new string. */
static char *nested(size_t depth, size_t *len)
{
	char *s = malloc(2 * depth + 1);
	memset(s, '[', depth);
	memset(s + depth, ']', depth);
	s[2 * depth] = '\0';
	*len = 2 * depth;
	return s;
}

static void test_depth(void)
{
	struct json_doc d = JSON_DOC_INIT;
	char err[160];
	size_t n;
	char *s = nested(LIMIT_JSON_DEPTH, &n);
	CHECK(json_parse(&d, s, n, err, sizeof(err)) == 0);
	CHECK(d.ntok == LIMIT_JSON_DEPTH &&
	      json_skip(&d, 0) == LIMIT_JSON_DEPTH);
	CHECK(!json_too_deep(&d, 0) && !json_too_deep(&d, 1));
	free(s);
	/* one level more: a document still, but a value too deep as an
	 * object of its own; the one it holds is not */
	s = nested(LIMIT_JSON_DEPTH + 1, &n);
	CHECK(json_parse(&d, s, n, err, sizeof(err)) == 0);
	CHECK(json_too_deep(&d, 0) && !json_too_deep(&d, 1));
	free(s);
	/* past the document's bound, it is refused whole */
	s = nested(JSON_DOC_MAX_DEPTH + 1, &n);
	CHECK(json_parse(&d, s, n, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "deeper") != NULL);
	free(s);
	s = nested(JSON_DOC_MAX_DEPTH, &n);
	CHECK(json_parse(&d, s, n, err, sizeof(err)) == 0);
	CHECK(json_too_deep(&d, 0) && json_too_deep(&d, 1));
	CHECK(!json_too_deep(&d, LIMIT_JSON_DEPTH));
	free(s);
	/* a million opening brackets: refused at the limit, no deep stack */
	s = nested(1000000, &n);
	CHECK(json_parse(&d, s, n / 2, err, sizeof(err)) == -EINVAL);
	free(s);
	/* objects in objects, to the limit */
	struct buf b = BUF_INIT;
	for (int i = 0; i < LIMIT_JSON_DEPTH - 1; i++)
		buf_add(&b, "{\"a\":", 5);
	buf_add(&b, "{}", 2);
	for (int i = 0; i < LIMIT_JSON_DEPTH - 1; i++)
		buf_addc(&b, '}');
	CHECK(json_parse(&d, b.p, b.len, err, sizeof(err)) == 0);
	CHECK(json_path(&d, 0, "a.a.a") == 6);
	buf_free(&b);
	json_doc_free(&d);
}

/* Closing a container used to walk up from the last token: a document
 * of many deep chains took time depth^2 per chain (minutes here). */
static void test_deep_is_linear(void)
{
	struct json_doc d = JSON_DOC_INIT;
	char err[160];
	size_t depth = LIMIT_JSON_DEPTH - 1, chains = 300;
	struct buf b = BUF_INIT;
	buf_addc(&b, '[');
	for (size_t c = 0; c < chains; c++) {
		if (c)
			buf_addc(&b, ',');
		for (size_t i = 0; i < depth; i++)
			buf_addc(&b, '[');
		for (size_t i = 0; i < depth; i++)
			buf_addc(&b, ']');
	}
	buf_addc(&b, ']');
	double t0 = now_s();
	CHECK(json_parse(&d, b.p, b.len, err, sizeof(err)) == 0);
	double dt = now_s() - t0;
	/* linear: milliseconds; quadratic: minutes. Generous either way. */
	if (dt > 60)
		fprintf(stderr, "deep chains took %.1f s\n", dt);
	CHECK(dt < 60);
	CHECK(d.tok[0].size == (int)chains);
	buf_free(&b);
	json_doc_free(&d);
}

static bool valid_utf8(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = u[i] < 0x80	     ? 1 :
			   (u[i] >> 5) == 6  ? 2 :
			   (u[i] >> 4) == 14 ? 3 :
			   (u[i] >> 3) == 30 ? 4 :
					       0;
		if (!k || i + k > n || (k == 2 && u[i] < 0xc2))
			return false;
		for (size_t j = 1; j < k; j++)
			if ((u[i + j] & 0xc0) != 0x80)
				return false;
		if (k == 3 && ((u[i] == 0xe0 && u[i + 1] < 0xa0) ||
			       (u[i] == 0xed && u[i + 1] > 0x9f)))
			return false;
		if (k == 4 &&
		    ((u[i] == 0xf0 && u[i + 1] < 0x90) || u[i] > 0xf4 ||
		     (u[i] == 0xf4 && u[i + 1] > 0x8f)))
			return false;
		i += k;
	}
	return true;
}

#define FFFD "\xef\xbf\xbd"

static void test_utf8(void)
{
	struct json_doc d = JSON_DOC_INIT;
	char err[160], out[128];
	/* valid text is left alone: no copy */
	const char *ok = "{\"a\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}";
	CHECK(json_parse(&d, ok, strlen(ok), err, sizeof(err)) == 0);
	CHECK(d.js == ok);
	/* each byte that starts no valid sequence becomes U+FFFD: a stray
	 * byte, an overlong NUL, a surrogate, a cut sequence, past U+10FFFF */
	const char *bad =
		"{\"a\":\"x\xffy\xc0\x80z\xed\xa0\x80w\xe2\x82\",\"b\":\"\xf4\x90\x80\x80\"}";
	CHECK(json_parse(&d, bad, strlen(bad), err, sizeof(err)) == 0);
	CHECK(d.js != bad && valid_utf8(d.js, d.len));
	CHECK(json_str(&d, json_get(&d, 0, "a"), out, sizeof(out)) > 0);
	CHECK_STR(out, "x" FFFD "y" FFFD FFFD "z" FFFD FFFD FFFD "w" FFFD FFFD);
	CHECK(json_str(&d, json_get(&d, 0, "b"), out, sizeof(out)) > 0);
	CHECK_STR(out, FFFD FFFD FFFD FFFD);
	/* outside strings it is still invalid JSON */
	CHECK(json_parse(&d, "[1,\xff]", 5, err, sizeof(err)) == -EINVAL);
	/* an object keeps (and later serves) only valid UTF-8 */
	const char *pod =
		"{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"1\",\"labels\":{\"k\":\"v\xfe\"}},"
		"\"spec\":{\"x\":\"\x80\x80\"}}";
	struct cache_obj *o =
		cache_obj_parse(cache_kind_lookup("pods"), pod, strlen(pod),
				false, err, sizeof(err));
	CHECK(o && valid_utf8(o->json, o->len));
	CHECK(o && !strcmp(cache_obj_label(o, "k"), "v" FFFD));
	cache_obj_put(o);
	json_doc_free(&d);
}

static struct cache_obj *mk(const char *kind, const char *meta, int *why,
			    char *err, size_t errlen)
{
	char js[512];
	snprintf(js, sizeof(js), "{\"metadata\":{%s\"resourceVersion\":\"7\"}}",
		 meta);
	struct json_doc d = JSON_DOC_INIT;
	struct cache_obj *o = NULL;
	*why = -2;
	if (!json_parse(&d, js, strlen(js), err, errlen))
		o = cache_obj_from_doc_why(cache_kind_lookup(kind), &d, 0,
					   false, err, errlen, why);
	json_doc_free(&d);
	return o;
}

static void test_keys(void)
{
	char err[200];
	int why;
	static const char *const bad[] = {
		"\"name\":\"x\\u0000a\",\"namespace\":\"ns\",",
		"\"name\":\"a/b\",\"namespace\":\"ns\",",
		"\"name\":\"a\\/b\",\"namespace\":\"ns\",",
		"\"name\":\"100%\",\"namespace\":\"ns\",",
		"\"name\":\".\",\"namespace\":\"ns\",",
		"\"name\":\"..\",\"namespace\":\"ns\",",
		"\"name\":\"a\\nb\",\"namespace\":\"ns\",",
		"\"name\":\"a\",", /* pods are namespaced */
		"\"name\":\"a\",\"namespace\":\"\",",
		"\"name\":\"a\",\"namespace\":\"NS\",",
		"\"name\":\"a\",\"namespace\":\"n\\u0000s\",",
		"\"name\":\"a\",\"namespace\":\"a/b\",",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct cache_obj *o =
			mk("pods", bad[i], &why, err, sizeof(err));
		if (o)
			fprintf(stderr, "accepted bad key #%zu: %s\n", i,
				bad[i]);
		CHECK(!o && why == CACHE_REJECT_NAME);
		cache_obj_put(o);
	}
	/* a cluster-scoped object has no namespace */
	struct cache_obj *o =
		mk("nodes", "\"name\":\"n\",\"namespace\":\"ns\",", &why, err,
		   sizeof(err));
	CHECK(!o && why == CACHE_REJECT_NAME);
	/* what real clusters have */
	o = mk("nodes", "\"name\":\"node-1.example.com\",", &why, err,
	       sizeof(err));
	CHECK(o != NULL);
	cache_obj_put(o);
	o = mk("pods",
	       "\"name\":\"system:controller:x\",\"namespace\":\"kube-system\",",
	       &why, err, sizeof(err));
	CHECK(o && !strcmp(o->name, "system:controller:x"));
	cache_obj_put(o);
	o = mk("pods", "\"name\":\"caf\\u00e9\",\"namespace\":\"a.b-1\",", &why,
	       err, sizeof(err));
	CHECK(o && !strcmp(o->name, "caf\xc3\xa9"));
	cache_obj_put(o);
	/* other faults keep their own reason */
	o = mk("pods",
	       "\"name\":\"a\",\"namespace\":\"ns\",\"labels\":{\"a\":1},",
	       &why, err, sizeof(err));
	CHECK(!o && why == CACHE_REJECT_INVALID);
	CHECK_STR(cache_obj_reject_name(CACHE_REJECT_NAME), "name");
	CHECK_STR(cache_obj_reject_name(CACHE_REJECT_TOO_LARGE), "too_large");
}

int main(void)
{
	test_depth();
	test_deep_is_linear();
	test_utf8();
	test_keys();
	return check_done("ingest");
}
