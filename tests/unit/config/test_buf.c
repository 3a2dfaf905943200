/*
 * test_buf: the growable buffer: appends of every kind, JSON string
 * escaping as Go writes it, base64url both ways, and the sticky failure
 * flag under allocation failure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "check.h"

static void test_appends(void)
{
	struct buf b = BUF_INIT;
	CHECK(b.len == 0 && buf_ok(&b));
	CHECK(buf_adds(&b, "ab") == 0 && buf_addc(&b, 'c') == 0);
	CHECK(buf_add(&b, "d\0e", 3) == 0 && b.len == 6);
	CHECK(buf_printf(&b, "%d-%s", 42, "x") == 0);
	CHECK(buf_add_u64(&b, 0) == 0 && buf_add_u64(&b, UINT64_MAX) == 0);
	CHECK(b.len == 6 + 4 + 1 + 20 && b.p[b.len] == '\0');
	CHECK(!memcmp(b.p + 6, "42-x018446744073709551615", 25));
	/* a long printf grows the buffer */
	char big[5000];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(buf_printf(&b, "<%s>", big) == 0 && b.len == 31 + 5001);
	buf_reset(&b);
	CHECK(b.len == 0 && b.p[0] == '\0' && buf_ok(&b));
	CHECK(buf_reserve(&b, 1 << 20) == 0 && b.cap >= (1 << 20));
	buf_adds(&b, "keep");
	size_t len = 0;
	char *p = buf_steal(&b, &len);
	CHECK(p && len == 4 && !strcmp(p, "keep"));
	CHECK(b.p == NULL && b.len == 0);
	free(p);
	p = buf_steal(&b, &len); /* an empty buffer gives "" */
	CHECK(p && len == 0 && p[0] == '\0');
	free(p);
	buf_free(&b);
	buf_free(&b); /* twice is fine */
}

static void test_json_str(void)
{
	struct buf b = BUF_INIT;
	const char in[] = "a\"b\\c\nd\re\tf<g>h&i\x01\x1fj\xc3\xa9";
	CHECK(buf_add_json_str(&b, in, sizeof(in) - 1) == 0);
	CHECK_STR(b.p, "\"a\\\"b\\\\c\\nd\\re\\tf\\u003cg\\u003eh\\u0026i"
		       "\\u0001\\u001fj\xc3\xa9\"");
	buf_reset(&b);
	CHECK(buf_add_json_str(&b, "a\0b", 3) == 0);
	CHECK_STR(b.p, "\"a\\u0000b\"");
	buf_reset(&b);
	CHECK(buf_add_json_str(&b, "", 0) == 0);
	CHECK_STR(b.p, "\"\"");
	buf_free(&b);
}

static void test_base64url(void)
{
	struct buf b = BUF_INIT, d = BUF_INIT;
	const unsigned char raw[] = { 0xfb, 0xff, 0x00, 'a', 'b' };
	static const char *const enc[] = { "",	   "-w",     "-_8",
					   "-_8A", "-_8AYQ", "-_8AYWI" };
	for (size_t n = 0; n <= sizeof(raw); n++) {
		buf_reset(&b);
		buf_reset(&d);
		CHECK(buf_add_base64url(&b, raw, n) == 0);
		CHECK_STR(n ? b.p : "", enc[n]);
		CHECK(buf_base64url_decode(b.p ? b.p : "", b.len, &d) == 0);
		CHECK(d.len == n && (!n || !memcmp(d.p, raw, n)));
	}
	/* padding and the standard alphabet are accepted */
	buf_reset(&d);
	CHECK(buf_base64url_decode("+/8A==", 6, &d) == 0 && d.len == 3 &&
	      !memcmp(d.p, raw, 3));
	buf_reset(&d);
	CHECK(buf_base64url_decode("a", 1, &d) == -EINVAL); /* 6 bits */
	CHECK(buf_base64url_decode("ab*d", 4, &d) == -EINVAL);
	CHECK(buf_base64url_decode("ab\0d", 4, &d) == -EINVAL);
	buf_free(&b);
	buf_free(&d);
}

/* After a failed append the buffer stays valid and says so once. */
static void test_alloc_failure(void)
{
	struct buf b = BUF_INIT;
	alloc_fail_after(1);
	CHECK(buf_adds(&b, "x") == -ENOMEM);
	alloc_fail_after(0);
	CHECK(!buf_ok(&b));
	/* the failure is sticky, so one check at the end finds it */
	CHECK(buf_adds(&b, "y") == -ENOMEM && !buf_ok(&b));
	buf_reset(&b);
	CHECK(buf_ok(&b));
	buf_adds(&b, "z");
	char *p = buf_steal(&b, NULL);
	CHECK_STR(p, "z");
	free(p);
	/* a failed buffer hands out nothing and is emptied */
	alloc_fail_after(1);
	buf_adds(&b, "w");
	alloc_fail_after(0);
	CHECK(buf_steal(&b, NULL) == NULL && b.p == NULL && buf_ok(&b));

	for (int n = 1; n < 20; n++) {
		struct buf e = BUF_INIT;
		alloc_fail_after(n);
		int rc =
			buf_add_base64url(&e, "0123456789abcdef0123456789", 26);
		rc |= buf_printf(&e, "%0300d", 1);
		long failed = alloc_failures();
		alloc_fail_after(0);
		CHECK(failed ? rc == -ENOMEM || !buf_ok(&e) : rc == 0);
		buf_free(&e);
		if (!failed)
			break;
	}
}

int main(void)
{
	test_appends();
	test_json_str();
	test_base64url();
	test_alloc_failure();
	return check_done("buf");
}
