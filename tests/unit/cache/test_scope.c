/*
 * test_scope: a reflector's scope. When a request's selectors provably
 * ask for a subset of the scope's (and when they do not), the query the
 * reflector sends upstream, and the stripping of dotted paths from
 * cached objects, commas and nesting included, and from a forwarded
 * answer (each item of a list).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/scope.h"
#include "cache/url.h"
#include "config/buf.h"
#include "check.h"

static void test_covers(void)
{
	struct cache_scope s;
	CHECK(cache_scope_init(&s, "team-a", NULL, NULL, NULL, 0) == 0);
	/* a namespace alone selects nothing out */
	CHECK(cache_scope_unselected(&s));
	CHECK(cache_scope_covers(&s, NULL, NULL));
	CHECK(cache_scope_covers(&s, "x=y", "status.phase=Running"));
	cache_scope_free(&s);

	CHECK(cache_scope_init(&s, NULL, "app in (web,db)",
			       "status.phase!=Succeeded", NULL, 0) == 0);
	CHECK(!cache_scope_unselected(&s));
	/* no selector, or only one of the two: more than the scope */
	CHECK(!cache_scope_covers(&s, NULL, NULL));
	CHECK(!cache_scope_covers(&s, "", ""));
	CHECK(!cache_scope_covers(&s, "app in (web,db)", NULL));
	CHECK(!cache_scope_covers(&s, NULL, "status.phase!=Succeeded"));
	/* the same terms, written alike up to white space */
	CHECK(cache_scope_covers(&s, "app in (web,db)",
				 "status.phase!=Succeeded"));
	CHECK(cache_scope_covers(&s, " app  in ( web , db ) ",
				 "status.phase != Succeeded"));
	/* narrowed further: still inside */
	CHECK(cache_scope_covers(&s, "tier=1,app in (web,db)",
				 "status.phase!=Succeeded,spec.nodeName=n1"));
	/* a different set, even a smaller one, is not proven inside */
	CHECK(!cache_scope_covers(&s, "app in (web)",
				  "status.phase!=Succeeded"));
	CHECK(!cache_scope_covers(&s, "app in (db,web)",
				  "status.phase!=Succeeded"));
	CHECK(!cache_scope_covers(&s, "app=web", "status.phase!=Succeeded"));
	CHECK(!cache_scope_covers(&s, "app in (web,db)",
				  "status.phase=Succeeded"));
	cache_scope_free(&s);

	/* "notin" and a key ending in "not" are different terms */
	CHECK(cache_scope_init(&s, NULL, "app notin (a)", NULL, NULL, 0) == 0);
	CHECK(cache_scope_covers(&s, "app notin (a)", NULL));
	CHECK(!cache_scope_covers(&s, "appnot in (a)", NULL));
	CHECK(!cache_scope_covers(&s, "app notin(a),x", NULL) == false);
	cache_scope_free(&s);

	/* an escaped comma stays inside its field term */
	CHECK(cache_scope_init(&s, NULL, NULL, "metadata.name=a\\,b", NULL,
			       0) == 0);
	CHECK(cache_scope_covers(&s, NULL, "metadata.name=a\\,b"));
	CHECK(!cache_scope_covers(&s, NULL, "metadata.name=a"));
	cache_scope_free(&s);
}

static void test_init(void)
{
	struct cache_scope s;
	char *strip[] = { "metadata.managedFields", "spec.x", NULL };
	CHECK(cache_scope_init(&s, "", "", "", strip, 2) == 0);
	CHECK(s.ns == NULL && s.label_selector == NULL &&
	      s.field_selector == NULL);
	CHECK(s.strip_managed); /* the parser's own cut */
	CHECK(s.nstrip == 1);
	CHECK_STR(s.strip[0], "spec.x");
	cache_scope_free(&s);
}

static void test_urls(void)
{
	struct cache_scope s;
	struct buf u = BUF_INIT;
	const struct cache_kind *pods = cache_kind_lookup("pods");
	CHECK(cache_scope_init(&s, "team-a", "app in (web,db)", "a!=b", NULL,
			       0) == 0);
	cache_url_list(&u, "http://h", pods, s.ns, 500, NULL);
	cache_scope_query(&s, &u);
	CHECK_STR(u.p, "http://h/api/v1/namespaces/team-a/pods?limit=500"
		       "&labelSelector=app%20in%20%28web%2Cdb%29"
		       "&fieldSelector=a%21%3Db");
	buf_reset(&u);
	cache_url_watch(&u, "http://h", pods, s.ns, 7, 60);
	CHECK(strncmp(u.p, "http://h/api/v1/namespaces/team-a/pods?watch=true",
		      49) == 0);
	buf_free(&u);
	cache_scope_free(&s);
	/* no selectors: nothing appended */
	CHECK(cache_scope_init(&s, NULL, NULL, NULL, NULL, 0) == 0);
	cache_scope_query(&s, &u);
	CHECK(u.len == 0);
	buf_free(&u);
	cache_scope_free(&s);
}

static struct cache_obj *pod(const char *js)
{
	return cache_obj_parse(cache_kind_lookup("pods"), js, strlen(js), false,
			       NULL, 0);
}

/* strip paths from js; the object's JSON after, or NULL */
static char *strip(const char *js, char **paths, int n)
{
	static char out[2048];
	struct cache_scope s;
	CHECK(cache_scope_init(&s, NULL, NULL, NULL, paths, n) == 0);
	struct cache_obj *o = cache_scope_strip(&s, pod(js));
	cache_scope_free(&s);
	if (!o)
		return NULL;
	snprintf(out, sizeof(out), "%.*s", (int)o->len, o->json);
	cache_obj_put(o);
	return out;
}

#define HEAD "{\"kind\":\"Pod\",\"apiVersion\":\"v1\","

static void test_strip(void)
{
	char *lac[] = { "metadata.annotations.kubectl\\.kubernetes\\.io/"
			"last-applied-configuration" };
	const char *js =
		"{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
		"\"resourceVersion\":\"5\",\"annotations\":{\"a\":\"1\","
		"\"kubectl.kubernetes.io/last-applied-configuration\":\"{big}\"}},"
		"\"spec\":{\"x\":1}}";
	CHECK_STR(strip(js, lac, 1), HEAD
		  "\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
		  "\"resourceVersion\":\"5\",\"annotations\":{\"a\":\"1\"}},"
		  "\"spec\":{\"x\":1}}");
	/* the only member: an empty object stays */
	char *x[] = { "spec.x" };
	CHECK_STR(strip(js, x, 1),
		  HEAD "\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
		       "\"resourceVersion\":\"5\",\"annotations\":{\"a\":\"1\","
		       "\"kubectl.kubernetes.io/last-applied-configuration\":"
		       "\"{big}\"}},\"spec\":{}}");
	/* the two last members of one object, and a whole subtree with a
	 * path inside it */
	char *two[] = { "metadata.annotations", "spec",
			"metadata.annotations.a" };
	CHECK_STR(strip(js, two, 3),
		  HEAD "\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
		       "\"resourceVersion\":\"5\"}}");
	/* first members, leaving the last */
	const char *js2 = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
			  "\"resourceVersion\":\"5\"},\"a\":1,\"b\":2,\"c\":3}";
	char *ab[] = { "a", "b" };
	CHECK_STR(strip(js2, ab, 2),
		  HEAD "\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
		       "\"resourceVersion\":\"5\"},\"c\":3}");
	char *bc[] = { "c", "b" };
	CHECK_STR(strip(js2, bc, 2),
		  HEAD "\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
		       "\"resourceVersion\":\"5\"},\"a\":1}");
	/* absent paths, and a path through a non-object: untouched */
	char *none[] = { "status.phase", "spec.x.y", "a.b" };
	CHECK_STR(strip(js2, none, 3),
		  HEAD "\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
		       "\"resourceVersion\":\"5\"},\"a\":1,\"b\":2,\"c\":3}");
	/* the stripped object keeps its parsed fields */
	struct cache_scope s;
	CHECK(cache_scope_init(&s, NULL, NULL, NULL, ab, 2) == 0);
	struct cache_obj *o = cache_scope_strip(&s, pod(js2));
	CHECK(o && o->rv == 5 && !strcmp(o->name, "p") && !strcmp(o->ns, "n"));
	cache_obj_put(o);
	cache_scope_free(&s);
}

/* A forwarded answer in the cache's shape: each item of a list, or the
 * object itself; managedFields when asked; anything else refused. */
static void test_strip_answer(void)
{
	char *lac[] = { "metadata.annotations.l" };
	struct cache_scope s;
	CHECK(cache_scope_init(&s, NULL, NULL, NULL, lac, 1) == 0);
	const char *list =
		"{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},"
		"\"items\":[{\"metadata\":{\"name\":\"a\",\"managedFields\":[{}],"
		"\"annotations\":{\"l\":\"big\",\"k\":\"v\"}}},"
		"{\"metadata\":{\"name\":\"b\"}},"
		"{\"metadata\":{\"annotations\":{\"l\":\"x\"},\"name\":\"c\"}}]}";
	struct buf out = BUF_INIT;
	CHECK(cache_scope_strip_answer(&s, true, list, strlen(list), &out) ==
	      0);
	buf_addc(&out, '\0');
	CHECK_STR(
		out.p,
		"{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},"
		"\"items\":[{\"metadata\":{\"name\":\"a\","
		"\"annotations\":{\"k\":\"v\"}}},"
		"{\"metadata\":{\"name\":\"b\"}},"
		"{\"metadata\":{\"annotations\":{},\"name\":\"c\"}}]}");
	buf_free(&out);
	/* managedFields kept when not asked; a single object */
	const char *one = "{\"metadata\":{\"name\":\"a\",\"managedFields\":[],"
			  "\"annotations\":{\"k\":\"v\",\"l\":\"big\"}}}";
	CHECK(cache_scope_strip_answer(&s, false, one, strlen(one), &out) == 0);
	buf_addc(&out, '\0');
	CHECK_STR(out.p, "{\"metadata\":{\"name\":\"a\",\"managedFields\":[],"
			 "\"annotations\":{\"k\":\"v\"}}}");
	buf_free(&out);
	/* the first object with nothing to strip (no cut made yet): as is */
	const char *plain = "{\"items\":[{\"metadata\":{\"name\":\"b\"}},"
			    "{\"metadata\":{\"managedFields\":[]}}]}";
	CHECK(cache_scope_strip_answer(&s, true, plain, strlen(plain), &out) ==
	      0);
	buf_addc(&out, '\0');
	CHECK_STR(out.p, "{\"items\":[{\"metadata\":{\"name\":\"b\"}},"
			 "{\"metadata\":{}}]}");
	buf_free(&out);
	/* not a JSON object: refused, out untouched */
	const char *bad[] = { "[1,2]", "{\"a\":", "not json" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK(cache_scope_strip_answer(&s, true, bad[i], strlen(bad[i]),
					       &out) == -EINVAL);
		CHECK(out.len == 0);
	}
	buf_free(&out);
	cache_scope_free(&s);
}

int main(void)
{
	test_covers();
	test_init();
	test_urls();
	test_strip();
	test_strip_answer();
	return check_done("test_scope");
}
