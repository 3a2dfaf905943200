/*
 * test_json: the validating tokenizer and the lookups on its tokens:
 * what it accepts and refuses, member and path lookups, iteration,
 * numbers at their limits, unescaping, reuse of a doc, and allocation
 * failure; shaped parsing (json_parse_shaped) against the full one,
 * and trusted parsing (json_parse_trusted) against the shaped one;
 * the structural index at every instruction set against the byte loop.
 * Hostile depth and UTF-8 are test_ingest's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "cache/json.h"
#include "cache/json_int.h"
#include "config/limits.h"
#include "config/alloc.h"
#include "check.h"

static void test_validation(void)
{
	static const char *good[] = {
		"{}",
		"[]",
		" {\"a\":[1,2.5,-3e2,true,false,null,\"x\\u00e9\\n\"]} ",
		"{\"a\":{\"b\":{}},\"c\":[[],{}]}",
		"[0]",
		"[\"s\"]",
	};
	static const char *bad[] = {
		"",
		"{",
		"[1 2]",
		"{\"a\" 1}",
		"{\"a\":1,}",
		"[1,]",
		"{\"a\":tru}",
		"[01]",
		"[1.]",
		"[-]",
		"{\"a\":1}{}",
		"{\"a\":1} x",
		"[\"a\x01\"]",
		"{1:2}",
		"[\"\\x\"]",
		"{\"a\":1,,\"b\":2}",
		"[,1]",
		"{\"a\"}",
		"[1e]",
		"nul",
	};
	struct json_doc d = JSON_DOC_INIT;
	char err[128];
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		int r = json_parse(&d, good[i], strlen(good[i]), err,
				   sizeof(err));
		if (r)
			fprintf(stderr, "rejected good #%zu: %s\n", i, err);
		CHECK(r == 0);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int r = json_parse(&d, bad[i], strlen(bad[i]), err,
				   sizeof(err));
		if (r != -EINVAL)
			fprintf(stderr, "accepted bad #%zu: %s\n", i, bad[i]);
		CHECK(r == -EINVAL);
	}
	const char *js = "{\"a\":{\"b\":\"x\\\"y\\u00e9\"},\"n\":\"123\"}";
	CHECK(json_parse(&d, js, strlen(js), err, sizeof(err)) == 0);
	int b = json_path(&d, 0, "a.b");
	char out[32];
	CHECK(b > 0 && json_str(&d, b, out, sizeof(out)) == 5);
	CHECK_STR(out, "x\"y\xc3\xa9");
	CHECK(json_str_len(&d, b) == 5);
	uint64_t v;
	CHECK(json_u64(&d, json_get(&d, 0, "n"), &v) == 0 && v == 123);
	CHECK(json_path(&d, 0, "a.c") < 0);
	json_doc_free(&d);
}

static void test_lookups(void)
{
	const char *js =
		"{\"a\":{\"b\":[1,{\"c\":2}],\"s\":\"x\"},\"n\":-7,"
		"\"big\":18446744073709551615,\"over\":\"18446744073709551616\","
		"\"neg\":\"-1\",\"f\":1.5,\"esc\":\"\\u0041\\ud83d\\ude00\\t\","
		"\"a\":\"dup\"}";
	struct json_doc d = JSON_DOC_INIT;
	char out[16];
	CHECK(json_parse(&d, js, strlen(js), NULL, 0) == 0);
	int a = json_get(&d, 0, "a");
	CHECK(a > 0 && json_type(&d, a) == JSMN_OBJECT);
	CHECK(json_get(&d, 0, "missing") == -1);
	CHECK(json_get(&d, json_get(&d, 0, "n"), "x") ==
	      -1); /* not an object */
	CHECK(json_path(&d, 0, "a.s") > 0);
	CHECK(json_path(&d, 0, "a.b.c") == -1); /* arrays have no members */
	CHECK(json_path(&d, 0, "") == 0); /* the empty path is obj itself */
	CHECK(json_str_eq(&d, json_path(&d, 0, "a.s"), "x"));
	CHECK(!json_str_eq(&d, json_get(&d, 0, "n"), "-7")); /* not a string */

	/* iteration: members are key tokens, values just after */
	int keys = 0;
	for (int k = json_first(&d, 0); k > 0; k = json_next(&d, 0, k))
		keys++;
	CHECK(keys == 8); /* a duplicate key is a member too */
	int b = json_path(&d, 0, "a.b"), elems = 0;
	for (int k = json_first(&d, b); k > 0; k = json_next(&d, b, k))
		elems++;
	CHECK(elems == 2);
	CHECK(json_skip(&d, b) == json_path(&d, 0, "a.s") - 1);

	uint64_t u = 9;
	int64_t i = 9;
	CHECK(json_u64(&d, json_get(&d, 0, "big"), &u) == 0 && u == UINT64_MAX);
	CHECK(json_u64(&d, json_get(&d, 0, "over"), &u) == -EINVAL);
	CHECK(json_u64(&d, json_get(&d, 0, "neg"), &u) == -EINVAL);
	CHECK(json_u64(&d, json_get(&d, 0, "f"), &u) == -EINVAL);
	CHECK(json_u64(&d, a, &u) == -EINVAL);
	CHECK(json_i64(&d, json_get(&d, 0, "n"), &i) == 0 && i == -7);
	CHECK(json_i64(&d, json_get(&d, 0, "neg"), &i) ==
	      -EINVAL); /* a string */

	int e = json_get(&d, 0, "esc");
	CHECK(json_str(&d, e, out, sizeof(out)) == 6);
	CHECK_STR(out, "A\xf0\x9f\x98\x80\t"); /* surrogate pair joined */
	CHECK(json_str_len(&d, e) == 6);
	CHECK(json_str(&d, e, out, 6) == -ENOSPC); /* no room for the NUL */
	CHECK(json_str(&d, json_get(&d, 0, "n"), out, sizeof(out)) == -EINVAL);
	/* a member that is not there: the lookup's -1 reads nothing */
	out[0] = 'x';
	CHECK(json_str(&d, json_get(&d, 0, "absent"), out, sizeof(out)) ==
	      -EINVAL);
	CHECK(out[0] == 'x');
	CHECK(json_u64(&d, json_get(&d, 0, "absent"), &u) == -EINVAL);
	CHECK(json_i64(&d, json_get(&d, 0, "absent"), &i) == -EINVAL);
	CHECK(json_str(&d, d.ntok, out, sizeof(out)) == -EINVAL);
	CHECK(!json_str_eq(&d, json_get(&d, 0, "absent"), ""));
	CHECK(json_str_len(&d, json_get(&d, 0, "absent")) == 0);
	size_t start, end, n;
	json_span(&d, e, &start, &end);
	CHECK(js[start] == '"' && js[end - 1] == '"');
	const char *raw = json_raw(&d, e, &n);
	CHECK(n == end - start - 2 && raw == js + start + 1);
	json_doc_free(&d);
}

/* A doc is reused across parses; a failed parse leaves it reusable. */
static void test_reuse_and_errors(void)
{
	struct json_doc d = JSON_DOC_INIT;
	char err[128] = "";
	CHECK(json_parse(&d, "[1,2,3]", 7, err, sizeof(err)) == 0 &&
	      d.ntok == 4);
	CHECK(json_parse(&d, "{\"a\":", 5, err, sizeof(err)) == -EINVAL);
	CHECK(err[0] != '\0');
	CHECK(json_parse(&d, "{\"k\":true}", 10, err, sizeof(err)) == 0);
	CHECK(json_get(&d, 0, "k") == 2);
	/* an input that ends early is caught even with a NUL after it */
	CHECK(json_parse(&d, "[1]\0]", 5, err, sizeof(err)) == -EINVAL);
	json_doc_free(&d);
	json_doc_free(&d); /* twice is fine */

	for (int n = 1; n < 50; n++) {
		struct json_doc e = JSON_DOC_INIT;
		alloc_fail_after(n);
		static const char js[] = "{\"a\":[1,2,{\"b\":\"\xff\"}]}";
		int rc = json_parse(&e, js, sizeof(js) - 1, NULL, 0);
		long failed = alloc_failures();
		alloc_fail_after(0);
		json_doc_free(&e);
		if (!failed) {
			if (rc || n < 2)
				fprintf(stderr, "  n=%d rc=%d\n", n, rc);
			CHECK(rc == 0 && n > 1);
			break;
		}
		CHECK(rc == -ENOMEM);
	}
}

/* {"keep": all, "deep": {"x": all, other containers skipped}, other
 * containers skipped} */
static const struct json_shape deep_shape = {
	&json_shape_skip, 1, (const struct json_shape_key[]){ { "x", 1, NULL } }
};
static const struct json_shape top_shape = {
	&json_shape_skip, 2,
	(const struct json_shape_key[]){ { "keep", 4, NULL },
					 { "deep", 4, &deep_shape } }
};

/* Parsed with and without shape: the same verdict and message. */
static void same_verdict(const char *js, size_t n, const struct json_shape *sh)
{
	struct json_doc a = JSON_DOC_INIT, b = JSON_DOC_INIT;
	char ea[128] = "", eb[128] = "";
	int ra = json_parse(&a, js, n, ea, sizeof(ea));
	int rb = json_parse_shaped(&b, js, n, sh, eb, sizeof(eb));
	if (ra != rb || strcmp(ea, eb))
		fprintf(stderr, "  %.*s: %d '%s' shaped %d '%s'\n", (int)n, js,
			ra, ea, rb, eb);
	CHECK(ra == rb && !strcmp(ea, eb));
	if (!ra && !rb)
		CHECK(b.ntok <= a.ntok &&
		      !strcmp(a.js == js ? "" : a.js, b.js == js ? "" : b.js));
	json_doc_free(&a);
	json_doc_free(&b);
}

static void test_shaped(void)
{
	static const char js[] =
		"{\"keep\":{\"a\":[1,2]},\"drop\":{\"b\":[1,{\"c\":\"d\"}]},"
		"\"deep\":{\"x\":[1],\"y\":{\"z\":1},\"s\":\"v\"},\"s\":\"str\","
		"\"n\":1,\"arr\":[{\"q\":1}]}";
	struct json_doc d = JSON_DOC_INIT, full = JSON_DOC_INIT;
	char err[128];
	CHECK(json_parse_shaped(&d, js, strlen(js), &top_shape, err,
				sizeof(err)) == 0);
	CHECK(json_parse(&full, js, strlen(js), err, sizeof(err)) == 0);
	CHECK(d.ntok < full.ntok);
	/* kept: the whole of keep, deep.x and every scalar */
	CHECK(json_path(&d, 0, "keep.a") > 0 &&
	      d.tok[json_path(&d, 0, "keep.a")].size == 2);
	CHECK(json_path(&d, 0, "deep.x") > 0);
	CHECK(json_str_eq(&d, json_path(&d, 0, "deep.s"), "v"));
	CHECK(json_str_eq(&d, json_get(&d, 0, "s"), "str"));
	int64_t n;
	CHECK(json_i64(&d, json_get(&d, 0, "n"), &n) == 0 && n == 1);
	/* skipped: one token each, the exact span, seen as empty */
	static const char *skipped[][2] = {
		{ "drop", "{\"b\":[1,{\"c\":\"d\"}]}" },
		{ "deep.y", "{\"z\":1}" },
		{ "arr", "[{\"q\":1}]" },
	};
	for (size_t i = 0; i < sizeof(skipped) / sizeof(*skipped); i++) {
		int t = json_path(&d, 0, skipped[i][0]);
		size_t b, e;
		CHECK(t > 0);
		if (t <= 0)
			continue;
		json_span(&d, t, &b, &e);
		CHECK(e - b == strlen(skipped[i][1]) &&
		      !memcmp(js + b, skipped[i][1], e - b));
		CHECK(d.tok[t].size == 0 && json_skip(&d, t) == t + 1 &&
		      json_first(&d, t) < 0);
	}
	CHECK(json_path(&d, 0, "drop.b") < 0);
	/* the members after a skipped one are still found */
	int k = json_first(&d, 0), members = 0;
	for (; k > 0; k = json_next(&d, 0, k))
		members++;
	CHECK(members == 6);
	/* a whole document skipped is one token */
	CHECK(json_parse_shaped(&d, js, strlen(js), &json_shape_skip, err,
				sizeof(err)) == 0 &&
	      d.ntok == 1 && d.tok[0].end == (int)strlen(js));
	json_doc_free(&d);
	json_doc_free(&full);

	/* what is refused inside a skipped value is refused the same way,
	 * at the same byte; what is accepted is accepted */
	static const char *docs[] = {
		"{\"drop\":[1 2]}",
		"{\"drop\":{\"a\" 1}}",
		"{\"drop\":[\"a\x01\"]}",
		"{\"drop\":[tru]}",
		"{\"drop\":[01]}",
		"{\"drop\":{\"a\":1,}}",
		"{\"drop\":[1,]}",
		"{\"drop\":[\"\\x\"]}",
		"{\"drop\":{1:2}}",
		"{\"drop\":[}",
		"{\"drop\":{]}",
		"{\"drop\":[[[]]]",
		"{\"drop\":[\"\xff\"],\"s\":\"\xc3\"}",
		"{\"drop\":[\"\xe2\x82\xac\\u00e9\\\"\"]}",
		"{\"deep\":{\"x\":[1 2]}}",
		"{\"deep\":{\"y\":[1,{\"a\":[}]}}",
		"{\"keep\":[1],\"drop\":{\"a\":{\"b\":{}}}} x",
		" {\"drop\" : [ 1 , { \"a\" : null } ] } ",
		"{\"drop\":[\"0123456789abcdef0123456789\\n\"]}",
		"{\"drop\":[\"0123456789abcdef0123456789\x80\"]}",
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(*docs); i++)
		for (size_t cut = 0; cut <= strlen(docs[i]); cut++) {
			same_verdict(docs[i], cut, &top_shape);
			same_verdict(docs[i], cut, &json_shape_skip);
		}
	for (size_t cut = 0; cut <= strlen(js); cut++)
		same_verdict(js, cut, &top_shape);

	/* nesting past the document's bound inside a skipped value */
	size_t depth = JSON_DOC_MAX_DEPTH + 1;
	char *deepjs = malloc(depth * 2 + 16);
	if (deepjs) {
		size_t w = 0;
		w += (size_t)sprintf(deepjs, "{\"drop\":");
		for (size_t i = 0; i + 1 < depth; i++)
			deepjs[w++] = '[';
		for (size_t i = 0; i + 1 < depth; i++)
			deepjs[w++] = ']';
		deepjs[w++] = '}';
		same_verdict(deepjs, w, &top_shape);
		CHECK(json_parse_shaped(&d, deepjs, w, &top_shape, err,
					sizeof(err)) == -EINVAL &&
		      strstr(err, "nested deeper"));
		/* one level less is fine */
		memmove(deepjs + 8, deepjs + 9, w - 9);
		memmove(deepjs + w - 3, deepjs + w - 2, 2);
		w -= 2;
		same_verdict(deepjs, w, &top_shape);
		CHECK(json_parse_shaped(&d, deepjs, w, &top_shape, err,
					sizeof(err)) == 0 &&
		      d.ntok == 3);
		/* the skipped value noted its depth, past the object limit */
		CHECK(json_too_deep(&d, 0) && json_too_deep(&d, 2));
		json_doc_free(&d);
		free(deepjs);
	}

	/* allocation failure: shaped parsing fails cleanly too */
	for (int f = 1; f < 50; f++) {
		struct json_doc e = JSON_DOC_INIT;
		alloc_fail_after(f);
		int rc = json_parse_shaped(&e, js, strlen(js), &top_shape, NULL,
					   0);
		long failed = alloc_failures();
		alloc_fail_after(0);
		json_doc_free(&e);
		if (!failed) {
			CHECK(rc == 0);
			break;
		}
		CHECK(rc == -ENOMEM);
	}
}

/* ---- stage one at each level against the byte loop ---- */

struct verdict {
	int rc;
	char err[128];
	struct json_doc d;
};

static void parse_at(int isa, const char *js, size_t n,
		     const struct json_shape *sh, struct verdict *v)
{
	json_isa_force(isa);
	v->err[0] = '\0';
	v->rc = json_parse_shaped(&v->d, js, n, sh, v->err, sizeof(v->err));
	json_isa_force(-1);
}

static bool same_doc(const struct verdict *a, const struct verdict *b)
{
	if (a->rc != b->rc || strcmp(a->err, b->err))
		return false;
	if (a->rc)
		return true;
	const struct json_doc *x = &a->d, *y = &b->d;
	if (x->ntok != y->ntok || x->len != y->len ||
	    x->newline != y->newline || memcmp(x->js, y->js, x->len) ||
	    x->ndeep != y->ndeep)
		return false;
	for (int i = 0; i < x->ntok; i++)
		if (memcmp(&x->tok[i], &y->tok[i], sizeof(x->tok[i])) ||
		    x->next[i] != y->next[i])
			return false;
	for (int i = 0; i < x->ndeep; i++)
		if (x->deep[i].at != y->deep[i].at ||
		    x->deep[i].max != y->deep[i].max)
			return false;
	return true;
}

static int isa_best;
static long isa_compared, trusted_compared;

/*
 * What a parse accepted, parsed again at every level with
 * json_parse_trusted(): the same tokens, skips and newline as
 * json_parse_shaped() of the same bytes (the accepted ones: d->js, with
 * bad UTF-8 replaced), its skipped containers jumped over.
 */
static void same_trusted(const struct json_doc *accepted,
			 const struct json_shape *sh)
{
	size_t n = accepted->len;
	char *js = malloc(n + 1);
	if (!js)
		return;
	memcpy(js, accepted->js, n);
	struct verdict want = { .d = JSON_DOC_INIT };
	parse_at(JSON_ISA_BYTES, js, n, sh, &want);
	CHECK(want.rc == 0);
	for (int isa = JSON_ISA_BYTES; isa <= isa_best; isa++) {
		struct verdict v = { .d = JSON_DOC_INIT };
		json_isa_force(isa);
		v.rc = json_parse_trusted(&v.d, js, n, sh);
		json_isa_force(-1);
		bool same = same_doc(&want, &v);
		if (!same)
			fprintf(stderr, "  trusted, isa %d, on %zu bytes: %d\n",
				isa, n, v.rc);
		CHECK(same);
		trusted_compared++;
		json_doc_free(&v.d);
	}
	json_doc_free(&want.d);
	free(js);
}

/* js parsed at every level the CPU has, with each shape: the same
 * verdict, message, tokens and skips as the byte loop's; and when it
 * was accepted, the same again from json_parse_trusted(). */
static void same_at_every_isa(const char *js, size_t n)
{
	static const struct json_shape *shapes[] = { NULL, &top_shape,
						     &json_shape_skip };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(*shapes); s++) {
		struct verdict ref = { .d = JSON_DOC_INIT };
		parse_at(JSON_ISA_BYTES, js, n, shapes[s], &ref);
		if (!ref.rc && shapes[s])
			same_trusted(&ref.d, shapes[s]);
		for (int isa = JSON_ISA_PORTABLE; isa <= isa_best; isa++) {
			struct verdict v = { .d = JSON_DOC_INIT };
			parse_at(isa, js, n, shapes[s], &v);
			bool same = same_doc(&ref, &v);
			if (!same)
				fprintf(stderr,
					"  isa %d shape %zu on %zu bytes: "
					"%d '%s' against bytes %d '%s'\n",
					isa, s, n, v.rc, v.err, ref.rc,
					ref.err);
			CHECK(same);
			isa_compared++;
			json_doc_free(&v.d);
		}
		json_doc_free(&ref.d);
	}
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A few mutations of js: bytes replaced by, or inserted from, the ones
 * that matter to the index; and cuts. */
static void mutate_and_compare(const char *js, size_t n, int rounds)
{
	static const char pick[] = "\"\\\\\\{}[]:, \t\n\r\x01\x7f\x80\xc3\xff"
				   "0e-u";
	char *m = malloc(n + 64);
	if (!m)
		return;
	for (int r = 0; r < rounds; r++) {
		memcpy(m, js, n);
		size_t len = n;
		int edits = 1 + (int)(rnd() % 4);
		for (int e = 0; e < edits && len; e++) {
			size_t at = rnd() % len;
			char c = pick[rnd() % (sizeof(pick) - 1)];
			if (rnd() % 2) {
				m[at] = c;
			} else if (len < n + 63) {
				memmove(m + at + 1, m + at, len - at);
				m[at] = c;
				len++;
			}
		}
		if (rnd() % 4 == 0)
			len = rnd() % (len + 1);
		same_at_every_isa(m, len);
	}
	free(m);
}

static size_t corpus_dir(const char *dir, int rounds)
{
	char path[512];
	size_t files = 0;
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		static char buf[1 << 20];
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		same_at_every_isa(buf, n);
		mutate_and_compare(buf, n, rounds);
		files++;
	}
	closedir(dp);
	return files;
}

static void test_isa(void)
{
	json_isa_force(-1);
	CHECK(json_isa() == JSON_ISA_DEFAULT || getenv(JSON_ISA_ENV));
	isa_best = json_isa_best();
	printf("json: stage one levels up to %d (%s)\n", isa_best,
	       isa_best == JSON_ISA_AVX2 ? "avx2" :
	       isa_best == JSON_ISA_SSE2 ? "sse2" :
					   "portable");
	/* forcing works, and past what the CPU has gives the best */
	CHECK(json_isa_force(JSON_ISA_BYTES) == -1);
	CHECK(json_isa() == JSON_ISA_BYTES);
	json_isa_force(JSON_ISA_AVX2 + 1);
	CHECK(json_isa() == isa_best);
	json_isa_force(JSON_ISA_PORTABLE);
	CHECK(json_isa() == JSON_ISA_PORTABLE);
	json_isa_force(-1);
#if defined(__x86_64__)
	CHECK(isa_best >= JSON_ISA_SSE2); /* every x86-64 has SSE2 */
#endif

	/* newline: whether the input had one, at every level */
	for (int isa = JSON_ISA_BYTES; isa <= isa_best; isa++) {
		struct verdict v = { .d = JSON_DOC_INIT };
		parse_at(isa, "{\n \"a\" :\r\n[1]}\n", 15, NULL, &v);
		CHECK(v.rc == 0 && v.d.newline);
		parse_at(isa, "{\"a\":\"x\\n\"}", 11, NULL, &v);
		CHECK(v.rc == 0 && !v.d.newline);
		/* around the value: not in it */
		parse_at(isa, "\n {\"a\":[1]}\r\n", 13, NULL, &v);
		CHECK(v.rc == 0 && !v.d.newline);
		parse_at(isa, "\n\"s\"\n", 5, NULL, &v);
		CHECK(v.rc == 0 && !v.d.newline);
		json_doc_free(&v.d);
	}
	/* backslash runs of every length, ending at every offset around
	 * a block's edge, before a quote and before other bytes */
	char js[256];
	for (int run = 0; run <= 9; run++)
		for (int at = 40; at < 140; at++)
			for (int tail = 0; tail < 3; tail++) {
				int w = snprintf(js, sizeof(js), "[\"");
				while (w < at - run)
					js[w++] = 'a';
				for (int i = 0; i < run; i++)
					js[w++] = '\\';
				const char *t = tail == 0 ? "\",1]" :
						tail == 1 ? "n\",\"x\"]" :
							    "\"]";
				w += snprintf(js + w, sizeof(js) - (size_t)w,
					      "%s", t);
				same_at_every_isa(js, (size_t)w);
			}
	/* strings, numbers and white space across block edges */
	for (int at = 50; at < 140; at++) {
		int w = 0;
		js[w++] = '{';
		while (w < at)
			js[w++] = ' ';
		w += snprintf(js + w, sizeof(js) - (size_t)w,
			      "\"k\":[-1.5e3,true,\"\xc3\xa9\\u00e9\",null],"
			      "\"keep\":{\"a\":\"b\"}}");
		for (int cut = 0; cut <= w; cut++)
			same_at_every_isa(js, (size_t)cut);
	}
	/* the fuzz corpora, and mutations of them */
	static const char *dirs[] = {
		"tests/fuzz/corpus/json_obj",
		"tests/fuzz/corpus/watch_event",
		"tests/fuzz/corpus/continue_token",
		"tests/fuzz/corpus/pretty",
	};
	size_t files = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		files += corpus_dir(dirs[i], 40);
	CHECK(files >= 40); /* run from the repository's top */
	/* random bytes drawn from what matters to the index */
	for (int r = 0; r < 3000; r++) {
		static const char pick[] = "\"\\{}[]:, \n0a\x80\x01";
		int n = (int)(rnd() % 200);
		for (int i = 0; i < n; i++)
			js[i] = pick[rnd() % (sizeof(pick) - 1)];
		same_at_every_isa(js, (size_t)n);
	}
	printf("json: %ld parses compared with the byte loop\n", isa_compared);
}

/*
 * json_parse_trusted() where its skip can go wrong: backslash runs
 * before quotes and brackets inside strings, each ending at every offset
 * around a block's edge, inside a skipped container; nesting past
 * LIMIT_JSON_DEPTH inside one (the validating skip notes it); newlines;
 * and bytes that were never accepted, which must stay within bounds.
 */
static void test_trusted(void)
{
	char js[320];
	for (int run = 0; run <= 9; run++)
		for (int at = 10; at < 150; at++)
			for (int tail = 0; tail < 4; tail++) {
				int w = snprintf(js, sizeof(js),
						 "{\"keep\":1,\"drop\":[\"");
				while (w < at - run) {
					js[w] = "a]}[{"[w % 5];
					w++;
				}
				for (int i = 0; i < run; i++)
					js[w++] = '\\';
				static const char *const tails[] = {
					"\",1],\"k\":2}",
					"n\",[\"]\"]],\"k\":{}}", "\"]}",
					"\",{\"x\":\"}\"}]\n}"
				};
				w += snprintf(js + w, sizeof(js) - (size_t)w,
					      "%s", tails[tail]);
				same_at_every_isa(js, (size_t)w);
			}
	/* newlines after a skipped value, in the same 64 bytes: inside the
	 * document's value or after it (which does not count) */
	static const char *const after[] = { "}\n", "} \n ", ",\"k\":1}\n",
					     "\n}", "}\r\n" };
	for (int pad = 0; pad < 80; pad++)
		for (size_t a = 0; a < sizeof(after) / sizeof(*after); a++) {
			int w = snprintf(js, sizeof(js), "{\"drop\":[\"");
			while (w < 12 + pad)
				js[w++] = 'x';
			w += snprintf(js + w, sizeof(js) - (size_t)w, "\"]%s",
				      after[a]);
			same_at_every_isa(js, (size_t)w);
			/* skipped at the root, then a newline */
			w = snprintf(js, sizeof(js), "[[\"%0*d\"]]%s", pad, 0,
				     a % 2 ? " \n" : "\n");
			same_at_every_isa(js, (size_t)w);
		}
	/* nesting in a skipped value just under, at and past the limit */
	for (int extra = -2; extra <= 2; extra++) {
		size_t depth = (size_t)(LIMIT_JSON_DEPTH + extra);
		char *deep = malloc(depth * 2 + 32);
		if (!deep)
			continue;
		size_t w = (size_t)sprintf(deep, "{\"keep\":1,\"drop\":");
		for (size_t i = 0; i < depth; i++)
			deep[w++] = '[';
		for (size_t i = 0; i < depth; i++)
			deep[w++] = ']';
		deep[w++] = '}';
		struct verdict ref = { .d = JSON_DOC_INIT };
		parse_at(JSON_ISA_BYTES, deep, w, &top_shape, &ref);
		CHECK(ref.rc == 0);
		/* past the limit (with the outer object's level) the skip
		 * noted it (json_too_deep()) */
		CHECK(json_too_deep(&ref.d, 0) ==
		      (depth + 1 > LIMIT_JSON_DEPTH));
		if (!ref.rc)
			same_trusted(&ref.d, &top_shape);
		json_doc_free(&ref.d);
		free(deep);
	}
	/* never accepted: an unclosed skipped value, at every cut */
	static const char open[] =
		"{\"keep\":1,\"drop\":[{\"a\":\"]}\\\"\"},[1,2]";
	for (size_t cut = 0; cut < sizeof(open); cut++)
		for (int isa = JSON_ISA_BYTES; isa <= isa_best; isa++) {
			struct json_doc d = JSON_DOC_INIT;
			char *c =
				malloc(cut + 1); /* exact: ASan sees past it */
			if (!c)
				continue;
			memcpy(c, open, cut);
			json_isa_force(isa);
			CHECK(json_parse_trusted(&d, c, cut, &top_shape) ==
			      -EINVAL);
			json_isa_force(-1);
			json_doc_free(&d);
			free(c);
		}
	printf("json: %ld trusted parses compared\n", trusted_compared);
	CHECK(trusted_compared > 10000);
}

/* json_escaped(): the parse proves "no backslash" for the strings it
 * gives a token, whatever path found their end (the inline 32 bytes,
 * the scan past them, stage one's index); a backslash in a skipped
 * container does not count, one in a token's string does. */
static void test_escapes(void)
{
	static const char *plain =
		"{\"keep\":{\"a\":\"0123456789012345678901234567890123456789\"},"
		"\"drop\":{\"b\":\"x\\ny\",\"c\\u0064\":1},\"s\":\"\xc3\xa9t\xc3\xa9\"}";
	static const struct {
		const char *js, *path; /* the escaped token's path */
	} esc[] = {
		{ "{\"s\":\"a\\\"b\"}", "s" },
		{ "{\"s\":\"0123456789012345678901234567890123456789\\n\"}",
		  "s" },
		{ "{\"keep\":{\"a\\u0062\":1}}", "keep" },
		{ "{\"deep\":{\"x\":[\"\\/\"]}}", "deep.x" },
	};
	for (int isa = JSON_ISA_BYTES; isa <= isa_best; isa++) {
		json_isa_force(isa);
		struct json_doc d = JSON_DOC_INIT;
		char err[128];
		CHECK(!d.plain); /* nothing proven yet */
		for (size_t i = 0; i < sizeof(esc) / sizeof(*esc); i++) {
			CHECK(json_parse_shaped(&d, esc[i].js,
						strlen(esc[i].js), &top_shape,
						err, sizeof(err)) == 0);
			CHECK(!d.plain);
			int found = 0;
			for (int t = 0; t < d.ntok; t++)
				if (json_type(&d, t) == JSMN_STRING &&
				    json_escaped(&d, t))
					found++;
			CHECK(found == 1);
			if (found != 1)
				fprintf(stderr, "  isa %d: %s: %d escaped\n",
					isa, esc[i].js, found);
			CHECK(json_path(&d, 0, esc[i].path) > 0);
		}
		/* the same doc parsed again without escapes is proven plain */
		CHECK(json_parse_shaped(&d, plain, strlen(plain), &top_shape,
					err, sizeof(err)) == 0);
		CHECK(d.plain);
		for (int t = 0; t < d.ntok; t++)
			CHECK(!json_escaped(&d, t));
		char out[64];
		CHECK(json_str(&d, json_path(&d, 0, "keep.a"), out,
			       sizeof(out)) == 40);
		/* unshaped, the skipped container's escapes are tokens */
		CHECK(json_parse(&d, plain, strlen(plain), err, sizeof(err)) ==
		      0);
		CHECK(!d.plain);
		CHECK(json_str(&d, json_path(&d, 0, "drop.b"), out,
			       sizeof(out)) == 3 &&
		      !strcmp(out, "x\ny"));
		CHECK(json_escaped(&d, json_path(&d, 0, "drop.b")) &&
		      !json_escaped(&d, json_path(&d, 0, "keep.a")));
		json_doc_free(&d);
	}
	json_isa_force(-1);
}

int main(void)
{
	test_validation();
	test_lookups();
	test_reuse_and_errors();
	test_shaped();
	test_isa();
	test_trusted();
	test_escapes();
	return check_done("json");
}
