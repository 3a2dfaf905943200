/*
 * test_selector_label: label selectors (cache/selector_label.c) against
 * the kube-apiserver's grammar: equality (=, ==, !=), sets (in, notin),
 * existence (key, !key), gt/lt, key and value validation with the
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

#define LABELS(...) ((const struct cache_label[]){ __VA_ARGS__ })
#define NLABELS(...) (sizeof(LABELS(__VA_ARGS__)) / sizeof(struct cache_label))
#define LMATCH(sel, ...) lmatch(sel, LABELS(__VA_ARGS__), NLABELS(__VA_ARGS__))

static const char key_re[] =
	"must consist of alphanumeric characters, '-', '_' or '.', and must "
	"start and end with an alphanumeric character (e.g. 'MyName',  or "
	"'my.name',  or '123-abc', regex used for validation is "
	"'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
static const char value_re[] =
	"a valid label must be an empty string or consist of alphanumeric "
	"characters, '-', '_' or '.', and must start and end with an "
	"alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
	"'12345', regex used for validation is "
	"'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
static const char subdomain_re[] =
	"a lowercase RFC 1123 subdomain must consist of lower case "
	"alphanumeric characters, '-' or '.', and must start and end with an "
	"alphanumeric character (e.g. 'example.com', regex used for "
	"validation is "
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static struct cache_lsel *lparse(const char *s)
{
	struct cache_lsel *sel = NULL;
	char err[ERRLEN] = "";
	int ret = cache_selector_label_parse(s, &sel, err, sizeof(err));

	if (ret)
		fprintf(stderr, "parse \"%s\": %d %s\n", s ? s : "(null)", ret,
			err);
	CHECK(ret == 0 && sel);
	return sel;
}

static bool lmatch(const char *s, const struct cache_label *l, size_t n)
{
	struct cache_lsel *sel = lparse(s);
	bool m = sel && cache_selector_label_match(sel, l, n);

	cache_selector_label_free(sel);
	return m;
}

/* s must fail to parse with exactly the message want. */
static void lerr(const char *s, const char *want)
{
	struct cache_lsel *sel = (struct cache_lsel *)&sel;
	char err[ERRLEN] = "";
	int ret = cache_selector_label_parse(s, &sel, err, sizeof(err));

	if (ret != -EINVAL)
		fprintf(stderr, "parse \"%s\": want -EINVAL, got %d\n", s, ret);
	CHECK(ret == -EINVAL);
	CHECK(sel == NULL);
	CHECK_STR(err, want);
	cache_selector_label_free(sel);
}

/* ------------------------------------------------------------------ */
/* Label selectors: grammar and matching                               */

static void test_label_empty(void)
{
	struct cache_lsel *sel;

	sel = lparse("");
	CHECK(cache_selector_label_empty(sel));
	CHECK(cache_selector_label_match(sel, NULL, 0));
	CHECK(cache_selector_label_match(sel, LABELS({ "a", "b" }), 1));
	CHECK(cache_selector_label_eq(sel, NULL) == NULL);
	cache_selector_label_free(sel);

	sel = lparse(NULL);
	CHECK(cache_selector_label_empty(sel));
	cache_selector_label_free(sel);

	sel = lparse(" \t\r\n ");
	CHECK(cache_selector_label_empty(sel));
	cache_selector_label_free(sel);

	sel = lparse("a");
	CHECK(!cache_selector_label_empty(sel));
	cache_selector_label_free(sel);
	cache_selector_label_free(NULL);
}

static void test_label_equality(void)
{
	CHECK(LMATCH("app=web", { "app", "web" }));
	CHECK(!LMATCH("app=web", { "app", "db" }));
	CHECK(!lmatch("app=web", NULL, 0));
	CHECK(LMATCH("app==web", { "app", "web" }));
	CHECK(LMATCH("  app \t==\n web  ", { "app", "web" }));
	CHECK(LMATCH("app = web", { "app", "web" }));
	/* != matches an object without the key, as Go does. */
	CHECK(LMATCH("app!=web", { "app", "db" }));
	CHECK(!LMATCH("app!=web", { "app", "web" }));
	CHECK(lmatch("app!=web", NULL, 0));
	CHECK(LMATCH("app!=web", { "other", "web" }));
	/* No value is the empty value. */
	CHECK(LMATCH("app=", { "app", "" }));
	CHECK(!LMATCH("app=", { "app", "x" }));
	CHECK(!lmatch("app=", NULL, 0));
	CHECK(LMATCH("app=,tier", { "app", "" }, { "tier", "x" }));
	CHECK(LMATCH("app!=", { "app", "x" }));
	/* A NULL value in the array reads as "". */
	CHECK(LMATCH("app=", { "app", NULL }));
}

static void test_label_sets(void)
{
	/* 05-b: app in (web,db) */
	CHECK(LMATCH("app in (web,db)", { "app", "web" }));
	CHECK(LMATCH("app in (web,db)", { "app", "db" }));
	CHECK(!LMATCH("app in (web,db)", { "app", "cache" }));
	CHECK(!lmatch("app in (web,db)", NULL, 0));
	/* 05-g: '+' decoded to ' ' by the caller. */
	CHECK(LMATCH("app in ( web , db )", { "app", "db" }));
	CHECK(LMATCH("app in(web)", { "app", "web" }));
	CHECK(LMATCH("app notin (web,db)", { "app", "cache" }));
	CHECK(!LMATCH("app notin (web,db)", { "app", "web" }));
	CHECK(lmatch("app notin (web,db)", NULL, 0));
	/* Empty members: "()", "(,", ",,", ",)" all stand for "". */
	CHECK(LMATCH("k in ()", { "k", "" }));
	CHECK(!LMATCH("k in ()", { "k", "a" }));
	CHECK(!LMATCH("k notin ()", { "k", "" }));
	CHECK(LMATCH("k in (a,)", { "k", "" }));
	CHECK(LMATCH("k in (,a)", { "k", "" }));
	CHECK(LMATCH("k in (,a)", { "k", "a" }));
	CHECK(LMATCH("k in (a,,b)", { "k", "" }));
	CHECK(LMATCH("k in (a,,b)", { "k", "b" }));
	CHECK(!LMATCH("k in (a,b)", { "k", "" }));
	CHECK(LMATCH("k in (b,a,b,a)", { "k", "a" }));
	/* Go's own example. */
	CHECK(LMATCH("x in (foo,,baz),y,z notin ()", { "x", "baz" },
		     { "y", "" }, { "z", "q" }));
	CHECK(!LMATCH("x in (foo,,baz),y,z notin ()", { "x", "baz" },
		      { "y", "" }, { "z", "" }));
	/* "in" and "notin" are identifiers as keys and values. */
	CHECK(LMATCH("in=notin", { "in", "notin" }));
	CHECK(LMATCH("notin in (in,notin)", { "notin", "in" }));
	CHECK(LMATCH("in", { "in", "x" }));
	CHECK(LMATCH("!notin", { "x", "x" }));
}

static void test_label_exists(void)
{
	CHECK(LMATCH("app", { "app", "" }));
	CHECK(!lmatch("app", NULL, 0));
	CHECK(LMATCH("!app", { "b", "x" }));
	CHECK(!LMATCH("!app", { "app", "x" }));
	CHECK(LMATCH(" ! app ", { "b", "x" }));
	/* 05-h: exists and not-equal. */
	CHECK(LMATCH("app,app!=web", { "app", "db" }));
	CHECK(!LMATCH("app,app!=web", { "app", "web" }));
	CHECK(!lmatch("app,app!=web", NULL, 0));
	CHECK(LMATCH("!a,!b,c", { "c", "1" }));
	CHECK(!LMATCH("!a,!b,c", { "b", "1" }, { "c", "1" }));
}

static void test_label_gt_lt(void)
{
	CHECK(LMATCH("k>1", { "k", "2" }));
	CHECK(!LMATCH("k>1", { "k", "1" }));
	CHECK(!LMATCH("k>1", { "k", "abc" }));
	CHECK(!lmatch("k>1", NULL, 0));
	CHECK(LMATCH("k<10", { "k", "9" }));
	CHECK(!LMATCH("k<10", { "k", "10" }));
	CHECK(LMATCH("k < 0010", { "k", "9" }));
	CHECK(LMATCH("k>9223372036854775806", { "k", "9223372036854775807" }));
	CHECK(!LMATCH("k<1", { "k", "9223372036854775808" }));
	CHECK(LMATCH("k>1,k<3", { "k", "2" }));
	CHECK(!LMATCH("k>1,k<3", { "k", "3" }));
}

static void test_label_keys(void)
{
	char key[80], sel[200];

	CHECK(LMATCH("example.com/app=web", { "example.com/app", "web" }));
	CHECK(LMATCH("app.kubernetes.io/name",
		     { "app.kubernetes.io/name", "x" }));
	CHECK(LMATCH("A_b.c-D=E-f_g.H", { "A_b.c-D", "E-f_g.H" }));
	CHECK(LMATCH("1=2", { "1", "2" }));
	memset(key, 'k', 63);
	key[63] = '\0';
	snprintf(sel, sizeof(sel), "%s=%s", key, key);
	CHECK(LMATCH(sel, { key, key }));
}

/* Several labels, sorted by key, so that lookup is a real binary search. */
static void test_label_many(void)
{
	const struct cache_label l[] = {
		{ "a", "1" }, { "b", "2" }, { "c", "3" }, { "d", "4" },
		{ "e", "5" }, { "f", "6" }, { "g", "7" },
	};
	size_t n = sizeof(l) / sizeof(l[0]);

	CHECK(lmatch("a=1,g=7,d=4", l, n));
	CHECK(lmatch("g in (7),a notin (2),!h,!0,c", l, n));
	CHECK(!lmatch("a=1,g=8", l, n));
	CHECK(!lmatch("e", l, 4));
	CHECK(lmatch("b>1,f<7", l, n));
}

static void test_label_eq(void)
{
	struct cache_lsel *sel;
	const char *key = NULL;

	sel = lparse("b=2,a=1");
	CHECK_STR(cache_selector_label_eq(sel, &key), "1"); /* sorted by key */
	CHECK_STR(key, "a");
	cache_selector_label_free(sel);

	sel = lparse("x!=y,z in (q),w,m==n");
	key = NULL;
	CHECK_STR(cache_selector_label_eq(sel, &key), "n");
	CHECK_STR(key, "m");
	CHECK_STR(cache_selector_label_eq(sel, NULL), "n");
	cache_selector_label_free(sel);

	sel = lparse("x!=y,z in (q),!w,v>1");
	key = "untouched";
	CHECK(cache_selector_label_eq(sel, &key) == NULL);
	CHECK_STR(key, "untouched");
	cache_selector_label_free(sel);

	sel = lparse("app=");
	CHECK_STR(cache_selector_label_eq(sel, &key), "");
	CHECK_STR(key, "app");
	cache_selector_label_free(sel);
}

/* ------------------------------------------------------------------ */
/* Label selectors: every error path, with the apiserver's text         */

static void test_label_syntax_errors(void)
{
	/* 05-c, from a real apiserver. */
	lerr("app===", "unable to parse requirement: found '=', expected: "
		       "identifier");
	lerr(",", "found ',', expected: !, identifier, or 'end of string'");
	lerr("=a", "found '=', expected: !, identifier, or 'end of string'");
	lerr("!=a", "found '!=', expected: !, identifier, or 'end of "
		    "string'");
	lerr("(a)", "found '(', expected: !, identifier, or 'end of string'");
	lerr("a,", "found '', expected: identifier after ','");
	lerr("a,,b", "found ',', expected: identifier after ','");
	lerr("a, =b", "found '=', expected: identifier after ','");
	lerr("a=b c", "found 'c', expected: ',' or 'end of string'");
	lerr("a=b)", "found ')', expected: ',' or 'end of string'");
	lerr("!a=b", "found '=', expected: ',' or 'end of string'");
	lerr("!a b", "found 'b', expected: ',' or 'end of string'");
	lerr("!", "unable to parse requirement: found '', expected: "
		  "identifier");
	lerr("!!a", "unable to parse requirement: found '!', expected: "
		    "identifier");
	lerr("a b", "unable to parse requirement: found 'b', expected: in, "
		    "notin, =, ==, !=, gt, lt");
	lerr("a (b)", "unable to parse requirement: found '(', expected: "
		      "in, notin, =, ==, !=, gt, lt");
	lerr("a !b", "unable to parse requirement: found '!', expected: in, "
		     "notin, =, ==, !=, gt, lt");
	lerr("a>=1", "unable to parse requirement: found '=', expected: "
		     "identifier");
	lerr("a=(", "unable to parse requirement: found '(', expected: "
		    "identifier");
	lerr("a=!", "unable to parse requirement: found '!', expected: "
		    "identifier");
	lerr("a in b", "unable to parse requirement: found 'b' expected: "
		       "'('");
	lerr("a in", "unable to parse requirement: found '' expected: '('");
	lerr("a notin ,", "unable to parse requirement: found ',' expected: "
			  "'('");
	lerr("a in (", "unable to parse requirement: found '', expected: "
		       "',', ')' or identifier");
	lerr("a in (=)", "unable to parse requirement: found '=', expected: "
			 "',', ')' or identifier");
	lerr("a in (b", "unable to parse requirement: found '', expected: "
			"',' or ')'");
	lerr("a in (b c)", "unable to parse requirement: found 'c', "
			   "expected: ',' or ')'");
	lerr("a in (b,=)", "unable to parse requirement: found '=', "
			   "expected: ',', or identifier");
	lerr("a in (b,", "unable to parse requirement: found '', expected: "
			 "',', or identifier");
	lerr("a in (b))", "found ')', expected: ',' or 'end of string'");
}

static void test_label_key_errors(void)
{
	char want[ERRLEN], key[300], sel[400];

	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: "
		 "\"a/b/c\": a valid label key %s with an optional DNS "
		 "subdomain prefix and '/' (e.g. 'example.com/MyName')",
		 key_re);
	lerr("a/b/c=x", want);

	lerr("/a", "unable to parse requirement: <nil>: Invalid value: "
		   "\"/a\": prefix part must be non-empty");

	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: \"a/\": "
		 "name part must be non-empty; name part %s",
		 key_re);
	lerr("a/", want);

	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: "
		 "\"Example.com/a\": prefix part %s",
		 subdomain_re);
	lerr("Example.com/a", want);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: "
		 "\"a..b/c\": prefix part %s",
		 subdomain_re);
	lerr("a..b/c", want);

	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: "
		 "\"-a\": name part %s",
		 key_re);
	lerr("-a", want);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: "
		 "\"a\\\"b\\\\\": name part %s",
		 key_re);
	lerr("a\"b\\", want);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: "
		 "\"a\\x01\xc3\xa9\\xff\": name part %s",
		 key_re);
	lerr("a\x01\xc3\xa9\xff", want);

	memset(key, 'k', 64);
	key[64] = '\0';
	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: \"%s\": "
		 "name part must be no more than 63 bytes",
		 key);
	lerr(key, want);

	/* A prefix over 253 bytes, made of valid labels. */
	memset(key, 'p', 254);
	key[254] = '\0';
	snprintf(sel, sizeof(sel), "%s/n", key);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: \"%s\": "
		 "prefix part must be no more than 253 bytes",
		 sel);
	lerr(sel, want);

	/* The key is checked before the operator is even read. */
	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: "
		 "\"_x\": name part %s",
		 key_re);
	lerr("_x in (", want);
}

static void test_label_value_errors(void)
{
	char want[2 * ERRLEN], val[80], sel[200];

	snprintf(want, sizeof(want),
		 "unable to parse requirement: values[0][a]: Invalid value: "
		 "\"-b\": %s",
		 value_re);
	lerr("a=-b", want);

	memset(val, 'v', 64);
	val[64] = '\0';
	snprintf(sel, sizeof(sel), "a==%s", val);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: values[0][a]: Invalid value: "
		 "\"%s\": must be no more than 63 bytes",
		 val);
	lerr(sel, want);

	val[63] = '-';
	snprintf(sel, sizeof(sel), "a!=%s", val);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: values[0][a]: Invalid value: "
		 "\"%s\": must be no more than 63 bytes; %s",
		 val, value_re);
	lerr(sel, want);

	/* Several bad values: Go's aggregate, in sorted value order. */
	snprintf(want, sizeof(want),
		 "unable to parse requirement: [values[1][k]: Invalid value: "
		 "\"y.\": %s, values[2][k]: Invalid value: \"z_\": %s]",
		 value_re, value_re);
	lerr("k in (z_,ok,y.)", want);

	lerr("k>x", "unable to parse requirement: values[0]: Invalid value: "
		    "\"x\": for 'Gt', 'Lt' operators, the value must be an "
		    "integer");
	lerr("k<", "unable to parse requirement: values[0]: Invalid value: "
		   "\"\": for 'Gt', 'Lt' operators, the value must be an "
		   "integer");
	lerr("k>99999999999999999999",
	     "unable to parse requirement: "
	     "values[0]: Invalid value: \"99999999999999999999\": for "
	     "'Gt', 'Lt' operators, the value must be an integer");
	snprintf(want, sizeof(want),
		 "unable to parse requirement: values[0][k]: Invalid value: "
		 "\"-1\": %s",
		 value_re);
	lerr("k>-1", want);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: [values[0]: Invalid value: "
		 "\"-x\": for 'Gt', 'Lt' operators, the value must be an "
		 "integer, values[0][k]: Invalid value: \"-x\": %s]",
		 value_re);
	lerr("k<-x", want);
}

static void test_label_errbuf(void)
{
	struct cache_lsel *sel = NULL;
	char err[8];

	CHECK(cache_selector_label_parse("a b", &sel, err, sizeof(err)) ==
	      -EINVAL);
	CHECK_STR(err, "unable ");
	CHECK(cache_selector_label_parse("a b", &sel, NULL, 0) == -EINVAL);
	CHECK(sel == NULL);
	CHECK(cache_selector_label_parse("a in (", &sel, err, 1) == -EINVAL);
	CHECK_STR(err, "");
}

/* ------------------------------------------------------------------ */
/* Allocation failure: every allocation, in turn                        */

static void test_label_alloc_failure(const char *s, bool valid)
{
	/* Matches the valid selector below. */
	const struct cache_label l[] = {
		{ "a", "x" },
		{ "e", "6" },
		{ "example.com/c", "d" },
		{ "g", "i" },
	};
	struct cache_lsel *sel;
	char err[ERRLEN];
	int ret, n, enomem = 0, bad = 0;

	for (n = 1; n < 1000; n++) {
		sel = (struct cache_lsel *)&sel;
		alloc_fail_after(n);
		ret = cache_selector_label_parse(s, &sel, err, sizeof(err));
		alloc_fail_after(0);
		if (ret == -ENOMEM) {
			enomem++;
			bad += sel != NULL;
			bad += strcmp(err, "out of memory") != 0;
			continue;
		}
		bad += ret != (valid ? 0 : -EINVAL);
		bad += valid ? sel == NULL : sel != NULL;
		if (sel && !cache_selector_label_match(
				   sel, l, sizeof(l) / sizeof(l[0])))
			bad++;
		cache_selector_label_free(sel);
		break;
	}
	CHECK(n < 1000);
	CHECK(enomem == n - 1);
	CHECK(enomem >= (valid ? 3 : 1));
	CHECK(bad == 0);
}

static void test_alloc_failure(void)
{
	test_label_alloc_failure("a in (x,y,,z),!b,example.com/c==d,e>5,"
				 "f notin (q),g!=h,a",
				 true);
	test_label_alloc_failure("a in (x,y),b=c d", false);
	test_label_alloc_failure("a in (x,y),b in (-c)", false);
	/* And nothing stays armed: a plain parse works afterwards. */
	CHECK(LMATCH("a=x", { "a", "x" }));
}

/* ------------------------------------------------------------------ */
/* What the apiserver does with each operator, side by side             */

/*
 * One object, labels {app: web, tier: fe}, against each operator as
 * `kubectl get -l` sends it: which match and which do not.
 */
static void test_label_operators(void)
{
	const struct cache_label l[] = { { "app", "web" }, { "tier", "fe" } };

	CHECK(lmatch("app=web", l, 2));
	CHECK(!lmatch("app=db", l, 2));
	CHECK(lmatch("app==web", l, 2));
	CHECK(!lmatch("app==db", l, 2));
	CHECK(lmatch("app!=db", l, 2));
	CHECK(!lmatch("app!=web", l, 2));
	CHECK(lmatch("app in (db,web)", l, 2));
	CHECK(!lmatch("app in (db)", l, 2));
	CHECK(lmatch("app notin (db)", l, 2));
	CHECK(!lmatch("app notin (db,web)", l, 2));
	CHECK(lmatch("tier", l, 2));
	CHECK(!lmatch("zone", l, 2));
	CHECK(lmatch("!zone", l, 2));
	CHECK(!lmatch("!tier", l, 2));
	/* a missing key: notin and != match, in and = do not */
	CHECK(lmatch("zone notin (a)", l, 2));
	CHECK(lmatch("zone!=a", l, 2));
	CHECK(!lmatch("zone in (a)", l, 2));
	CHECK(!lmatch("zone=a", l, 2));
	/* every requirement must hold */
	CHECK(lmatch("app in (web),tier=fe,!zone,tier", l, 2));
	CHECK(!lmatch("app in (web),tier=be", l, 2));
}

/* Validation of keys and values inside sets and after '!': the same
 * texts as for equality. */
static void test_label_validation_in_sets(void)
{
	char want[2 * ERRLEN];

	snprintf(want, sizeof(want),
		 "unable to parse requirement: values[0][k]: Invalid value: "
		 "\"-x\": %s",
		 value_re);
	lerr("k notin (-x)", want);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: <nil>: Invalid value: "
		 "\"-k\": name part %s",
		 key_re);
	lerr("!-k", want);
	lerr("-k in (a)", want);
	lerr("-k", want);
	snprintf(want, sizeof(want),
		 "unable to parse requirement: values[0][k]: Invalid value: "
		 "\"x_\": %s",
		 value_re);
	lerr("k!=x_", want);
	lerr("k==x_", want);
}

/* ------------------------------------------------------------------ */
/* Sharing: one parsed selector, read by several threads at once        */

struct shared {
	const struct cache_lsel *l;
	int hits;
};

static void *share_worker(void *arg)
{
	struct shared *sh = arg;
	int i;

	for (i = 0; i < 20000; i++) {
		const char *v = i & 1 ? "web" : "db";

		sh->hits += cache_selector_label_match(
			sh->l, LABELS({ "app", v }, { "tier", "fe" }), 2);
	}
	return NULL;
}

static void test_shared(void)
{
	struct shared sh[4];
	pthread_t th[4];
	struct cache_lsel *l = lparse("app in (web),tier,!gone");
	int i;

	for (i = 0; i < 4; i++) {
		sh[i] = (struct shared){ l, 0 };
		CHECK(pthread_create(&th[i], NULL, share_worker, &sh[i]) == 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK(sh[i].hits == 10000);
	}
	cache_selector_label_free(l);
}

int main(void)
{
	test_label_empty();
	test_label_equality();
	test_label_sets();
	test_label_exists();
	test_label_gt_lt();
	test_label_keys();
	test_label_many();
	test_label_eq();
	test_label_operators();
	test_label_syntax_errors();
	test_label_key_errors();
	test_label_value_errors();
	test_label_validation_in_sets();
	test_label_errbuf();
	test_alloc_failure();
	test_shared();
	return check_done("selector_label");
}
