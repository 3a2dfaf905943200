/*
 * test_pretty: when an answer is indented, and the indentation itself
 * (Go's json.Indent with two spaces, as the apiserver writes it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/pretty.h"
#include "check.h"

static void test_indent(void)
{
	const char *in = "{\"kind\":\"Status\",\"metadata\":{},\"list\":[],"
			 "\"a\":[1,{\"b\":\"x,y:{z}\\\"\"}],\"c\":null}\n";
	const char *want = "{\n"
			   "  \"kind\": \"Status\",\n"
			   "  \"metadata\": {},\n"
			   "  \"list\": [],\n"
			   "  \"a\": [\n"
			   "    1,\n"
			   "    {\n"
			   "      \"b\": \"x,y:{z}\\\"\"\n"
			   "    }\n"
			   "  ],\n"
			   "  \"c\": null\n"
			   "}";
	struct buf out = BUF_INIT;
	size_t n = strlen(in) - 1; /* without the newline */
	CHECK(proxy_pretty_indent(in, n, &out) == 0);
	CHECK_STR(out.p, want);
	buf_free(&out);
}

/* The reference: the whole-buffer indenter the proxy had before it
 * streamed, kept here as it was. */
static void ref_newline(struct buf *out, int depth)
{
	buf_addc(out, '\n');
	for (int i = 0; i < depth; i++)
		buf_add(out, "  ", 2);
}

static void ref_indent(const char *in, size_t n, struct buf *out)
{
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		switch (c) {
		case '"': {
			size_t s = i++;
			while (i < n && in[i] != '"')
				i += in[i] == '\\' ? 2 : 1;
			buf_add(out, in + s, (i < n ? i + 1 : n) - s);
			break;
		}
		case '{':
		case '[': {
			size_t j = i + 1;
			while (j < n && (in[j] == ' ' || in[j] == '\n' ||
					 in[j] == '\t' || in[j] == '\r'))
				j++;
			buf_addc(out, c);
			if (j < n && (in[j] == '}' || in[j] == ']')) {
				buf_addc(out, in[j]);
				i = j;
				break;
			}
			ref_newline(out, ++depth);
			break;
		}
		case '}':
		case ']':
			ref_newline(out, --depth);
			buf_addc(out, c);
			break;
		case ',':
			buf_addc(out, ',');
			ref_newline(out, depth);
			break;
		case ':':
			buf_add(out, ": ", 2);
			break;
		case ' ':
		case '\n':
		case '\t':
		case '\r':
			break;
		default:
			buf_addc(out, c);
		}
	}
}

/* Stream in[0..n) split at the given cuts through an output buffer of
 * max bytes; the result in got (appended). */
static void stream(const char *in, size_t n, const size_t *cuts, size_t ncuts,
		   size_t max, struct buf *got)
{
	struct proxy_pretty_indenter st = { 0 };
	char *out = malloc(max);
	size_t from = 0, k, used;
	for (size_t c = 0; c <= ncuts; c++) {
		size_t to = c < ncuts ? cuts[c] : n;
		while (from < to) {
			k = proxy_pretty_indent_step(&st, in + from, to - from,
						     &used, out, max);
			CHECK(k || used); /* always progress */
			if (!k && !used)
				break;
			buf_add(got, out, k);
			from += used;
		}
		/* a piece consumed: a pending byte may wait for output room */
		k = proxy_pretty_indent_step(&st, "", 0, &used, out, max);
		buf_add(got, out, k);
	}
	while ((k = proxy_pretty_indent_end(&st, out, max)))
		buf_add(got, out, k);
	free(out);
}

/* What proxy_pretty_indent_count() says in[0..n), cut as given, will
 * take indented. */
static size_t counted(const char *in, size_t n, const size_t *cuts,
		      size_t ncuts)
{
	struct proxy_pretty_indenter st = { 0 };
	size_t from = 0, total = 0;
	for (size_t c = 0; c <= ncuts; c++) {
		size_t to = c < ncuts ? cuts[c] : n;
		total += proxy_pretty_indent_count(&st, in + from, to - from);
		from = to;
	}
	return total + proxy_pretty_indent_count_end(&st);
}

static const char *const cases[] = {
	"{}",
	"[]",
	"{ }",
	"[ \n ]",
	"{\"a\":{},\"b\":[],\"c\":[{}],\"d\":[[]],\"e\":{\"f\":{}}}",
	"{\"s\":\"quote \\\" and backslash \\\\\",\"t\":\"\\\\\"}",
	"{\"u\":\"\\u00e9\\u003c\\ud83d\\ude00\",\"raw\":\"\xc3\xa9\"}",
	"{\"x\":\"{[,:]}\",\"y\":\"\\\\\\\"\\\\\"}",
	"[1,-2.5e+10,true,false,null,\"\",0]",
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
	"{\"resourceVersion\":\"12\"},\"items\":[{\"metadata\":{\"name\":"
	"\"web-1\",\"labels\":{\"app\":\"web\"},\"annotations\":{}},"
	"\"spec\":{\"containers\":[{\"name\":\"c\",\"args\":[]}]}}]}\n",
	"[[[[[[[[[[[[[[[[[[[[1,[2,{\"deep\":[[[]]]}]]]]]]]]]]]]]]]]]]]]",
	" { \"a\" : [ 1 , 2 ] , \"b\" : { \"c\" : null } } \n",
	"{\"a\":\"x",	/* unterminated string */
	"{\"a\":\"x\\", /* ends inside an escape */
	"{\"a\":[",	/* ends after an opening bracket */
	"\"just a string\"",
	"42",
};

static void test_stream_equals_reference(void)
{
	for (size_t t = 0; t < sizeof(cases) / sizeof(*cases); t++) {
		const char *in = cases[t];
		size_t n = strlen(in);
		struct buf want = BUF_INIT;
		ref_indent(in, n, &want);
		buf_addc(&want, 0);
		/* whole input, output buffers of 1, 2, 3, 7 and 4096 bytes */
		static const size_t maxes[] = { 1, 2, 3, 7, 4096 };
		for (size_t m = 0; m < 5; m++) {
			struct buf got = BUF_INIT;
			stream(in, n, NULL, 0, maxes[m], &got);
			buf_addc(&got, 0);
			CHECK_STR(got.p, want.p);
			buf_free(&got);
		}
		/* one cut at every position, and every byte its own piece */
		size_t *cuts = malloc((n + 1) * sizeof(*cuts));
		CHECK(counted(in, n, NULL, 0) == want.len - 1);
		for (size_t at = 0; at <= n; at++) {
			CHECK(counted(in, n, &at, 1) == want.len - 1);
			for (size_t m = 0; m < 5; m += 2) {
				struct buf got = BUF_INIT;
				stream(in, n, &at, 1, maxes[m], &got);
				buf_addc(&got, 0);
				CHECK_STR(got.p, want.p);
				buf_free(&got);
			}
			cuts[at] = at;
		}
		struct buf got = BUF_INIT;
		stream(in, n, cuts, n + 1, 1, &got);
		buf_addc(&got, 0);
		CHECK_STR(got.p, want.p);
		buf_free(&got);
		/* and the whole-buffer entry point */
		struct buf whole = BUF_INIT;
		CHECK(proxy_pretty_indent(in, n, &whole) == 0);
		buf_addc(&whole, 0);
		CHECK_STR(whole.p, want.p);
		buf_free(&whole);
		free(cuts);
		buf_free(&want);
	}
}

/* Random valid JSON with strings full of escapes, streamed through
 * random cuts and buffer sizes, against the reference. */
static void gen(struct buf *b, unsigned *seed, int depth)
{
	static const char *const atoms[] = { "1",	 "-0.5",
					     "true",	 "null",
					     "\"\"",	 "\"a\\\"b\"",
					     "\"\\\\\"", "\"\\u00e9,:{\"" };
	int r = (int)(rand_r(seed) % 8);
	if (depth > 6 || r < 3) {
		buf_adds(b, atoms[rand_r(seed) % 8]);
		return;
	}
	bool obj = r & 1;
	buf_addc(b, obj ? '{' : '[');
	int k = (int)(rand_r(seed) % 4);
	for (int i = 0; i < k; i++) {
		if (i)
			buf_addc(b, ',');
		if (obj)
			buf_adds(b, i & 1 ? "\"k\\\\\":" : "\"key\":");
		gen(b, seed, depth + 1);
	}
	buf_addc(b, obj ? '}' : ']');
}

static void test_stream_random(void)
{
	unsigned seed = 15;
	for (int t = 0; t < 300; t++) {
		struct buf in = BUF_INIT, want = BUF_INIT, got = BUF_INIT;
		gen(&in, &seed, 0);
		ref_indent(in.p, in.len, &want);
		buf_addc(&want, 0);
		size_t cuts[8], nc = 0, at = 0;
		while (nc < 8 && in.len > at + 1) {
			at += 1 + rand_r(&seed) % (in.len - at);
			if (at >= in.len)
				break;
			cuts[nc++] = at;
		}
		stream(in.p, in.len, cuts, nc, 1 + rand_r(&seed) % 40, &got);
		buf_addc(&got, 0);
		CHECK_STR(got.p, want.p);
		buf_free(&in);
		buf_free(&want);
		buf_free(&got);
	}
}

/* Strings as Kubernetes objects have them (names, UIDs, managedFields
 * keys with escaped quotes), some long enough to cross a 64-byte block
 * of the indenter's fast path, escapes anywhere, a backslash last. */
static void gen_str(struct buf *b, unsigned *seed)
{
	static const char *const parts[] = { "a",  "web-0", "\\\"",    "\\\\",
					     "{}", ",:[",   "\\u00e9", " " };
	unsigned len = rand_r(seed) % 4 ? rand_r(seed) % 12 : rand_r(seed) % 90;
	buf_addc(b, '"');
	for (unsigned i = 0; i < len; i++)
		buf_adds(b, parts[rand_r(seed) % 8]);
	buf_addc(b, '"');
}

/* Random JSON shaped like an object list: deep at times (past the fast
 * path's depth), many empty {} and [], and, when ws, white space
 * between tokens. */
static void gen_big(struct buf *b, unsigned *seed, int depth, bool ws)
{
	int r = (int)(rand_r(seed) % 10);
	if (ws && rand_r(seed) % 8 == 0)
		buf_adds(b, rand_r(seed) % 2 ? " " : "\n\t ");
	if (depth > 22 || r < 3) {
		static const char *const atoms[] = { "1",    "-0.5e3", "true",
						     "null", "{}",     "[]" };
		if (r == 0)
			gen_str(b, seed);
		else
			buf_adds(b, atoms[rand_r(seed) % 6]);
		return;
	}
	bool obj = r & 1;
	buf_addc(b, obj ? '{' : '[');
	int k = (int)(rand_r(seed) % (depth < 4 ? 9 : 4));
	for (int i = 0; i < k; i++) {
		if (i)
			buf_addc(b, ',');
		if (obj) {
			gen_str(b, seed);
			buf_addc(b, ':');
		}
		gen_big(b, seed, depth + (rand_r(seed) % 6 ? 1 : 4), ws);
	}
	if (ws && rand_r(seed) % 8 == 0)
		buf_addc(b, ' ');
	buf_addc(b, obj ? '}' : ']');
}

/* Long documents, where the indenter copies strings and literals 64
 * bytes at a time: streamed through random cuts into outputs of every
 * size, from a few bytes (the byte loop only) to 64 KiB, against the
 * reference; and the length counted before, the same. */
static void test_stream_long(void)
{
	unsigned seed = 27;
	static const size_t maxes[] = { 1, 7, 100, 161, 300, 4096, 65536 };
	for (int t = 0; t < 200; t++) {
		struct buf in = BUF_INIT, want = BUF_INIT;
		buf_adds(&in, "{\"kind\":\"PodList\",\"items\":[");
		int items = 1 + (int)(rand_r(&seed) % 6);
		for (int i = 0; i < items; i++) {
			if (i)
				buf_addc(&in, ',');
			gen_big(&in, &seed, 2, t % 3 == 0);
		}
		buf_adds(&in, "]}");
		ref_indent(in.p, in.len, &want);
		buf_addc(&want, 0);
		for (size_t m = 0; m < sizeof(maxes) / sizeof(*maxes); m++) {
			size_t cuts[6], nc = 0, at = 0;
			while (t % 2 && nc < 6 && in.len > at + 1) {
				at += 1 + rand_r(&seed) % (in.len - at);
				if (at >= in.len)
					break;
				cuts[nc++] = at;
			}
			struct buf got = BUF_INIT;
			stream(in.p, in.len, cuts, nc, maxes[m], &got);
			buf_addc(&got, 0);
			CHECK_STR(got.p, want.p);
			buf_free(&got);
			/* and its length, counted first */
			CHECK(counted(in.p, in.len, cuts, nc) == want.len - 1);
		}
		buf_free(&in);
		buf_free(&want);
	}
}

/* Bytes that are not JSON (backslashes and white space outside strings,
 * unbalanced brackets, quotes anywhere): the indenter promises nothing
 * but the same bytes however it is fed. The byte loop alone (outputs of
 * fewer than 160 bytes) against 64 KiB outputs, which take the fast
 * path wherever it may; and the count of what it writes. */
static void test_stream_garbage(void)
{
	static const char alphabet[] = "{}[],:\"\\ \n\tax1{}[],:\"";
	unsigned seed = 12;
	for (int t = 0; t < 2000; t++) {
		struct buf in = BUF_INIT, slow = BUF_INIT, fast = BUF_INIT;
		size_t len = 64 + rand_r(&seed) % 400;
		/* mostly valid-looking runs, with a stray byte at times */
		for (size_t i = 0; i < len; i++) {
			unsigned r = rand_r(&seed) % 100;
			char c = r < 60 ? "abcdefgh"[r % 8] :
				 r < 97 ? alphabet[r % 15] :
					  alphabet[15 + r % 6];
			if (t % 4 == 0 && r % 7 == 0)
				c = (char)(rand_r(&seed) % 256);
			buf_addc(&in, c);
		}
		stream(in.p, in.len, NULL, 0, 100, &slow);
		stream(in.p, in.len, NULL, 0, 65536, &fast);
		buf_addc(&slow, 0);
		buf_addc(&fast, 0);
		CHECK(slow.len == fast.len &&
		      !memcmp(slow.p, fast.p, slow.len));
		size_t cut = rand_r(&seed) % in.len;
		CHECK(counted(in.p, in.len, NULL, 0) == slow.len - 1);
		CHECK(counted(in.p, in.len, &cut, 1) == slow.len - 1);
		buf_free(&in);
		buf_free(&slow);
		buf_free(&fast);
	}
}

static void test_asked(void)
{
	/* ?pretty wins over the User-Agent, either way */
	CHECK(proxy_pretty_asked("true", NULL));
	CHECK(proxy_pretty_asked("TRUE", "kubectl/v1.32"));
	CHECK(proxy_pretty_asked("1", NULL));
	CHECK(proxy_pretty_asked("t", NULL));
	CHECK(!proxy_pretty_asked("false", "curl/8.5.0"));
	CHECK(!proxy_pretty_asked("0", "Mozilla/5.0 (X11)"));
	CHECK(!proxy_pretty_asked("yes", NULL));
	/* absent or empty: people's clients get it, programs do not */
	CHECK(proxy_pretty_asked(NULL, "curl/8.5.0"));
	CHECK(proxy_pretty_asked("", "Wget/1.21"));
	CHECK(proxy_pretty_asked(NULL, "Mozilla/5.0 (X11; Linux x86_64)"));
	CHECK(!proxy_pretty_asked(NULL, "kubectl/v1.32.0 (linux/amd64)"));
	CHECK(!proxy_pretty_asked(NULL, "python-requests/2.31"));
	CHECK(!proxy_pretty_asked(NULL, "Mozilla/4.0"));
	CHECK(!proxy_pretty_asked(NULL, NULL));
}

static void test_body(void)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "{\"a\":[]}\n\n");
	proxy_pretty_body(&b);
	CHECK_STR(b.p, "{\n  \"a\": []\n}"); /* no trailing newline */
	buf_free(&b);
	/* an unterminated string is copied to the end, not overrun */
	struct buf out = BUF_INIT;
	CHECK(proxy_pretty_indent("{\"a\":\"x", 7, &out) == 0);
	CHECK_STR(out.p, "{\n  \"a\": \"x");
	buf_free(&out);
}

/* Nesting around the deepest the 64-byte blocks go (15): long strings
 * so the blocks run, and commas, colons and closing brackets at every
 * depth from 10 to 19, against the reference. */
static void test_stream_deep(void)
{
	static const size_t maxes[] = { 161, 4096, 65536 };
	for (int depth = 10; depth < 20; depth++) {
		struct buf in = BUF_INIT, want = BUF_INIT;
		for (int d = 0; d < depth; d++)
			buf_adds(&in, d % 2 ? "[\"a long string that crosses "
					      "the blocks of 64 bytes\"," :
					      "{\"k\":1,\"key of an object\":");
		buf_adds(&in, "{\"leaf\":[1,2,{},[]],\"x\":\"y\"}");
		for (int d = depth - 1; d >= 0; d--)
			buf_adds(&in, d % 2 ? ",true]" : "}");
		ref_indent(in.p, in.len, &want);
		buf_addc(&want, 0);
		for (size_t m = 0; m < sizeof(maxes) / sizeof(*maxes); m++) {
			struct buf got = BUF_INIT;
			stream(in.p, in.len, NULL, 0, maxes[m], &got);
			buf_addc(&got, 0);
			CHECK_STR(got.p, want.p);
			buf_free(&got);
		}
		CHECK(counted(in.p, in.len, NULL, 0) == want.len - 1);
		buf_free(&in);
		buf_free(&want);
	}
}

int main(void)
{
	test_indent();
	/* the indenter's each way through its input the CPU has: the byte
	 * loop, SSE2 and AVX2, each against the reference */
	int best = proxy_pretty_isa();
	for (int isa = PROXY_PRETTY_BYTES; isa <= best; isa++) {
		CHECK(proxy_pretty_isa_force(isa) == (isa ? isa - 1 : -1));
		CHECK(proxy_pretty_isa() == isa);
		test_stream_equals_reference();
		test_stream_random();
		test_stream_long();
		test_stream_deep();
		test_stream_garbage();
	}
	proxy_pretty_isa_force(-1);
	CHECK(proxy_pretty_isa() == best);
	if (best != PROXY_PRETTY_AVX2)
		fprintf(stderr, "pretty: this CPU has no AVX2; its indenter "
				"is not tested here\n");
	test_asked();
	test_body();
	return check_done("pretty");
}
