/*
 * fuzz pretty: the JSON indenter of ?pretty answers, differential: the
 * streaming proxy_pretty_indent_step()/_end() fed the input in pieces
 * and writing into windows of sizes the input chooses, against the
 * whole-buffer proxy_pretty_indent().
 *
 * The input: byte 0 seeds the piece sizes (in: 1 to 64 bytes or the
 * rest; out: 1 to 64 bytes or 4 KiB, where the indenter's 64-byte
 * blocks run), the rest is the body. Any bytes: the indenter assumes
 * valid JSON but must not fail on anything else.
 *
 * Invariants beyond "no crash":
 *   - the byte loop, SSE2 and AVX2 (as the CPU has them) write the same
 *     bytes;
 *   - any split of the input and of the output gives the same bytes as
 *     the whole, and proxy_pretty_indent_count() their number;
 *   - every call makes progress (consumes input or writes output) until
 *     the input is consumed and _end() has nothing more;
 *   - the indenter only adds or drops white space outside strings: both
 *     sides, with that white space removed, are the same bytes;
 *   - proxy_pretty_body() gives the same bytes as proxy_pretty_indent()
 *     of the body without its trailing newlines.
 */
#include "config/buf.h"
#include "proxy/pretty.h"
#include "tests/fuzz/fuzz.h"

/* p[0..n) without white space outside strings (strings as the indenter
 * reads them: '"' opens and closes, a backslash takes the next byte). */
static size_t squeeze(const char *p, size_t n, char *out)
{
	bool str = false, esc = false;
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				str = false;
		} else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
			continue;
		} else if (c == '"') {
			str = true;
		}
		out[w++] = c;
	}
	return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint32_t seed = data[0];
	const char *in = (const char *)data + 1;
	size_t n = size - 1;

	struct buf whole = BUF_INIT;
	FUZZ_CHECK(proxy_pretty_indent(in, n, &whole) == 0);

	/* the same from each way the CPU has through the input: the byte
	 * loop, SSE2, AVX2 */
	int best = proxy_pretty_isa();
	for (int isa = PROXY_PRETTY_BYTES; isa < best; isa++) {
		struct buf other = BUF_INIT;
		proxy_pretty_isa_force(isa);
		FUZZ_CHECK(proxy_pretty_indent(in, n, &other) == 0);
		proxy_pretty_isa_force(-1);
		FUZZ_CHECK(buf_ok(&whole) && buf_ok(&other));
		FUZZ_CHECK(
			other.len == whole.len &&
			(!whole.len || !memcmp(other.p, whole.p, whole.len)));
		buf_free(&other);
	}

	/* the same in pieces, into small windows */
	struct buf parts = BUF_INIT;
	struct proxy_pretty_indenter st = { 0 };
	char win[4096];
	size_t off = 0;
	while (off < n) {
		size_t take = fuzz_next_size(&seed, 1u << 20),
		       room = fuzz_next_size(&seed, 1u << 20);
		if (take > n - off)
			take = n - off;
		if (room > sizeof(win))
			room = sizeof(win);
		size_t used = 0;
		size_t k = proxy_pretty_indent_step(&st, in + off, take, &used,
						    win, room);
		FUZZ_CHECK(used <= take && k <= room);
		FUZZ_CHECK(used || k);
		buf_add(&parts, win, k);
		off += used;
	}
	for (;;) {
		size_t room = fuzz_next_size(&seed, 1u << 20);
		if (room > sizeof(win))
			room = sizeof(win);
		size_t k = proxy_pretty_indent_end(&st, win, room);
		FUZZ_CHECK(k <= room);
		if (!k)
			break;
		buf_add(&parts, win, k);
	}
	FUZZ_CHECK(buf_ok(&whole) && buf_ok(&parts));
	FUZZ_CHECK(parts.len == whole.len &&
		   (!whole.len || !memcmp(parts.p, whole.p, whole.len)));

	/* the length counted first, in two pieces, is the length made */
	struct proxy_pretty_indenter cs = { 0 };
	size_t cut = seed % (n + 1);
	size_t counted = proxy_pretty_indent_count(&cs, in, cut);
	counted += proxy_pretty_indent_count(&cs, in + cut, n - cut);
	counted += proxy_pretty_indent_count_end(&cs);
	FUZZ_CHECK(counted == whole.len);

	/* nothing but white space outside strings changes */
	char *a = malloc(n + 1), *b = malloc(whole.len + 1);
	FUZZ_CHECK(a && b);
	size_t an = squeeze(in, n, a), bn = squeeze(whole.p, whole.len, b);
	FUZZ_CHECK(an == bn && !memcmp(a, b, an));
	free(a);
	free(b);

	/* proxy_pretty_body: the same, trailing newlines dropped first */
	struct buf body = BUF_INIT, ref = BUF_INIT;
	buf_add(&body, in, n);
	size_t trim = n;
	while (trim && in[trim - 1] == '\n')
		trim--;
	FUZZ_CHECK(proxy_pretty_indent(in, trim, &ref) == 0);
	proxy_pretty_body(&body);
	FUZZ_CHECK(body.len == ref.len &&
		   (!ref.len || !memcmp(body.p, ref.p, ref.len)));
	buf_free(&body);
	buf_free(&ref);
	buf_free(&whole);
	buf_free(&parts);
	return 0;
}
