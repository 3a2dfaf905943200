/*
 * test_selector_field: field selectors (cache/selector_field.c) against
 * the kube-apiserver's grammar: =, == and != joined by commas, escaped
 * '\', ',' and '=' in values, unknown fields and malformed terms with the
 * apiserver's exact error texts, allocation failure at every step, and
 * one parsed selector shared by several threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cache/selector.h"
#include "config/alloc.h"
#include "tests/unit/check.h"

#define ERRLEN 1024

/* A fake object for field selectors: name, namespace, node, phase; a
 * NULL member is a field the object does not have. */
struct obj {
	const char *name, *ns, *node, *phase;
};

static const char *obj_get(const void *ctx, const char *field)
{
	const struct obj *o = ctx;

	if (!strcmp(field, "metadata.name"))
		return o->name;
	if (!strcmp(field, "metadata.namespace"))
		return o->ns;
	if (!strcmp(field, "spec.nodeName"))
		return o->node ? o->node : "";
	if (!strcmp(field, "status.phase"))
		return o->phase; /* NULL on purpose: means "" too */
	return "";
}

static const char *const pod_fields[] = { "spec.nodeName", "status.phase",
					  NULL };

static struct cache_fsel *fparse(const char *s)
{
	struct cache_fsel *sel = NULL;
	char err[ERRLEN] = "";
	int ret = cache_selector_field_parse(s, pod_fields, &sel, err,
					     sizeof(err));

	if (ret)
		fprintf(stderr, "fparse \"%s\": %d %s\n", s ? s : "(null)", ret,
			err);
	CHECK(ret == 0 && sel);
	return sel;
}

static bool fmatch(const char *s, const struct obj *o)
{
	struct cache_fsel *sel = fparse(s);
	bool m = sel && cache_selector_field_match(sel, obj_get, o);

	cache_selector_field_free(sel);
	return m;
}

static void ferr(const char *s, const char *want)
{
	struct cache_fsel *sel = (struct cache_fsel *)&sel;
	char err[ERRLEN] = "";
	int ret = cache_selector_field_parse(s, pod_fields, &sel, err,
					     sizeof(err));

	if (ret != -EINVAL)
		fprintf(stderr, "fparse \"%s\": want -EINVAL, got %d\n", s,
			ret);
	CHECK(ret == -EINVAL);
	CHECK(sel == NULL);
	CHECK_STR(err, want);
}

/* ------------------------------------------------------------------ */
/* Field selectors                                                     */

static void test_field_basic(void)
{
	const struct obj web = { "web-2", "demo", NULL, "Pending" };
	const struct obj bound = { "db-1", "demo", "node-1", NULL };
	struct cache_fsel *sel;

	sel = fparse("");
	CHECK(cache_selector_field_empty(sel));
	CHECK(cache_selector_field_match(sel, obj_get, &web));
	CHECK(cache_selector_field_eq(sel, "metadata.name") == NULL);
	cache_selector_field_free(sel);
	sel = fparse(NULL);
	CHECK(cache_selector_field_empty(sel));
	cache_selector_field_free(sel);
	sel = fparse(",,");
	CHECK(cache_selector_field_empty(sel));
	cache_selector_field_free(sel);
	cache_selector_field_free(NULL);

	/* 05-d, 05-e, 05-i */
	CHECK(fmatch("metadata.name=web-2", &web));
	CHECK(!fmatch("metadata.name=web-2", &bound));
	CHECK(fmatch("status.phase=Pending", &web));
	CHECK(fmatch("spec.nodeName=", &web));
	CHECK(!fmatch("spec.nodeName=", &bound));
	CHECK(fmatch("spec.nodeName!=", &bound));
	/* The callback's NULL is "" as well. */
	CHECK(fmatch("status.phase=", &bound));
	CHECK(fmatch("metadata.name==db-1", &bound));
	CHECK(fmatch("metadata.name!=web-2", &bound));
	CHECK(!fmatch("metadata.name!=web-2", &web));
	CHECK(fmatch("metadata.namespace=demo,metadata.name!=db-1", &web));
	CHECK(!fmatch("metadata.namespace=demo,metadata.name!=db-1", &bound));
	CHECK(fmatch(",metadata.namespace=demo,", &bound));
	/* A value may hold '!' and spaces; only '\', ',' and '=' escape. */
	CHECK(fmatch("metadata.name!=!x y", &web));
	/* Two equalities on one field match nothing. */
	CHECK(!fmatch("metadata.name=web-2,metadata.name=db-1", &web));
}

static void test_field_escapes(void)
{
	const struct obj o = { "a,b=c\\d", "ns", NULL, NULL };
	struct cache_fsel *sel;

	CHECK(fmatch("metadata.name=a\\,b\\=c\\\\d", &o));
	CHECK(fmatch("metadata.name=a\\,b\\=c\\\\d,metadata.namespace=ns", &o));
	sel = fparse("metadata.namespace=ns,metadata.name=a\\,b\\=c\\\\d");
	CHECK_STR(cache_selector_field_eq(sel, "metadata.name"), "a,b=c\\d");
	CHECK_STR(cache_selector_field_eq(sel, "metadata.namespace"), "ns");
	cache_selector_field_free(sel);
}

static void test_field_eq(void)
{
	struct cache_fsel *sel;

	sel = fparse(
		"metadata.name!=x,spec.nodeName==n1,metadata.namespace=ns");
	CHECK(!cache_selector_field_empty(sel));
	CHECK(cache_selector_field_eq(sel, "metadata.name") == NULL);
	CHECK_STR(cache_selector_field_eq(sel, "spec.nodeName"), "n1");
	CHECK_STR(cache_selector_field_eq(sel, "metadata.namespace"), "ns");
	CHECK(cache_selector_field_eq(sel, "status.phase") == NULL);
	cache_selector_field_free(sel);
}

static void test_field_errors(void)
{
	struct cache_fsel *sel = NULL;
	char err[ERRLEN];

	/* 05-f, from a real apiserver. */
	ferr("spec.bogus=x", "field label not supported: spec.bogus");
	ferr("metadata.name = x", "field label not supported: metadata.name ");
	ferr("=x", "field label not supported: ");
	ferr("a!b=c", "field label not supported: a!b");
	/* The field is taken as written: no unescaping, no trimming. */
	ferr("metadata.name\\=a", "field label not supported: "
				  "metadata.name\\");
	ferr("metadata.name\\=a=b", "invalid field selector: unescaped "
				    "character in value: 61");
	/* Terms are sorted before they are checked. */
	ferr("z.bogus=1,b.bogus=2", "field label not supported: b.bogus");
	ferr("metadata.name", "invalid selector: 'metadata.name'; can't "
			      "understand 'metadata.name'");
	ferr("metadata.name=a,x!y",
	     "invalid selector: "
	     "'metadata.name=a,x!y'; can't understand 'x!y'");
	/* A syntax error anywhere beats an unknown field. */
	ferr("a.bogus=x,zzz", "invalid selector: 'a.bogus=x,zzz'; can't "
			      "understand 'zzz'");
	ferr("metadata.name=a=b", "invalid field selector: unescaped "
				  "character in value: 61");
	ferr("metadata.name=a\\x", "invalid field selector: invalid escape "
				   "sequence: \\x");
	ferr("metadata.name=a\\\xc3\xa9", "invalid field selector: invalid "
					  "escape sequence: \\\xc3\xa9");
	ferr("metadata.name=a\\", "invalid field selector: invalid escape "
				  "sequence: \\");
	ferr("metadata.name=a\\,metadata.namespace=b",
	     "invalid field selector: unescaped character in value: 61");

	/* Fields beyond metadata come only from extra. */
	CHECK(cache_selector_field_parse("spec.nodeName=x", NULL, &sel, err,
					 sizeof(err)) == -EINVAL);
	CHECK_STR(err, "field label not supported: spec.nodeName");
	CHECK(cache_selector_field_parse("metadata.namespace=x", NULL, &sel,
					 err, sizeof(err)) == 0);
	CHECK(sel && !cache_selector_field_empty(sel));
	cache_selector_field_free(sel);
	CHECK(cache_selector_field_parse("spec.bogus=x", NULL, &sel, NULL, 0) ==
	      -EINVAL);
	CHECK(sel == NULL);
}

/* ------------------------------------------------------------------ */
/* Allocation failure: every allocation, in turn                        */

static void test_field_alloc_failure(const char *s, bool valid)
{
	struct cache_fsel *sel;
	char err[ERRLEN];
	int ret, n, enomem = 0, bad = 0;

	for (n = 1; n < 1000; n++) {
		sel = (struct cache_fsel *)&sel;
		alloc_fail_after(n);
		ret = cache_selector_field_parse(s, pod_fields, &sel, err,
						 sizeof(err));
		alloc_fail_after(0);
		if (ret == -ENOMEM) {
			enomem++;
			bad += sel != NULL;
			continue;
		}
		bad += ret != (valid ? 0 : -EINVAL);
		bad += valid ? sel == NULL : sel != NULL;
		cache_selector_field_free(sel);
		break;
	}
	CHECK(n < 1000);
	CHECK(enomem == n - 1);
	CHECK(enomem >= (valid ? 3 : 1));
	CHECK(bad == 0);
}

static void test_alloc_failure(void)
{
	test_field_alloc_failure("metadata.name=a\\,b,metadata.namespace!=c,"
				 "spec.nodeName==,status.phase=Running",
				 true);
	test_field_alloc_failure("metadata.name=a,spec.bogus=b", false);
	test_field_alloc_failure("metadata.name=a,x=\\q", false);
	/* And nothing stays armed: a plain parse works afterwards. */
	const struct obj o = { "a", "b", NULL, NULL };
	CHECK(fmatch("metadata.name=a", &o));
}

/* ------------------------------------------------------------------ */
/* What the apiserver does with each operator, side by side             */

/* One running pod on node n1 against =, == and != on every field, and
 * commas joining them: each term must hold. */
static void test_field_operators(void)
{
	const struct obj o = { "web-1", "demo", "n1", "Running" };

	CHECK(fmatch("spec.nodeName=n1", &o));
	CHECK(!fmatch("spec.nodeName=n2", &o));
	CHECK(fmatch("spec.nodeName==n1", &o));
	CHECK(!fmatch("spec.nodeName==n2", &o));
	CHECK(fmatch("spec.nodeName!=n2", &o));
	CHECK(!fmatch("spec.nodeName!=n1", &o));
	CHECK(fmatch("status.phase!=Pending,status.phase!=Failed", &o));
	CHECK(!fmatch("status.phase!=Pending,status.phase!=Running", &o));
	CHECK(fmatch("metadata.namespace==demo,metadata.name=web-1,"
		     "spec.nodeName!=,status.phase=Running",
		     &o));
	CHECK(!fmatch("metadata.namespace==demo,metadata.name=web-2", &o));
	/* values are compared exactly: no case folding, no trimming */
	CHECK(!fmatch("status.phase=running", &o));
	CHECK(!fmatch("metadata.name=web-1 ", &o));
}

/* An escaped comma or '=' is part of the value, not a separator; an
 * escaped backslash is one backslash. */
static void test_field_escape_split(void)
{
	const struct obj comma = { "a,metadata.name=b", "ns", NULL, NULL };
	const struct obj slash = { "x\\", "ns", NULL, NULL };
	struct cache_fsel *sel;

	CHECK(fmatch("metadata.name=a\\,metadata.name\\=b", &comma));
	CHECK(!fmatch("metadata.name=a\\,metadata.name\\=b", &slash));
	CHECK(fmatch("metadata.name=x\\\\,metadata.namespace=ns", &slash));
	CHECK(fmatch("metadata.name!=x\\\\", &comma));
	sel = fparse("metadata.name=x\\\\");
	CHECK_STR(cache_selector_field_eq(sel, "metadata.name"), "x\\");
	cache_selector_field_free(sel);
}

/* Fields the kind does not declare, whatever the operator. */
static void test_field_unknown(void)
{
	ferr("spec.bogus!=x", "field label not supported: spec.bogus");
	ferr("spec.bogus==x", "field label not supported: spec.bogus");
	ferr("metadata.labels=x", "field label not supported: "
				  "metadata.labels");
	ferr("Metadata.name=x", "field label not supported: Metadata.name");
	ferr("metadata.name=a,status.podIP=b", "field label not supported: "
					       "status.podIP");
}

/* ------------------------------------------------------------------ */
/* Sharing: one parsed selector, read by several threads at once        */

struct shared {
	const struct cache_fsel *f;
	int hits;
};

static void *share_worker(void *arg)
{
	struct shared *sh = arg;
	const struct obj run = { "web-1", "demo", "n1", "Running" };
	const struct obj pend = { "web-2", "demo", NULL, "Pending" };
	int i;

	for (i = 0; i < 20000; i++)
		sh->hits += cache_selector_field_match(sh->f, obj_get,
						       i & 1 ? &run : &pend);
	return NULL;
}

static void test_shared(void)
{
	struct shared sh[4];
	pthread_t th[4];
	struct cache_fsel *f = fparse("metadata.namespace=demo,"
				      "status.phase!=Pending");
	int i;

	for (i = 0; i < 4; i++) {
		sh[i] = (struct shared){ f, 0 };
		CHECK(pthread_create(&th[i], NULL, share_worker, &sh[i]) == 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK(sh[i].hits == 10000);
	}
	cache_selector_field_free(f);
}

int main(void)
{
	test_field_basic();
	test_field_operators();
	test_field_escapes();
	test_field_escape_split();
	test_field_eq();
	test_field_errors();
	test_field_unknown();
	test_alloc_failure();
	test_shared();
	return check_done("selector_field");
}
