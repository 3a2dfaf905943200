/*
 * test_parse: the resourceVersion/limit rule and RFC 3339 timestamps,
 * with the malformed and overflowing inputs clients send.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cache/parse.h"
#include "check.h"

static void test_u64(void)
{
	uint64_t v = 7;
	CHECK(cache_parse_u64("0", &v) && v == 0);
	CHECK(cache_parse_u64("123456", &v) && v == 123456);
	CHECK(cache_parse_u64("007", &v) && v == 7);
	CHECK(cache_parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	v = 7;
	CHECK(!cache_parse_u64("18446744073709551616", &v) && v == 7);
	CHECK(!cache_parse_u64("99999999999999999999999", &v));
	CHECK(!cache_parse_u64("", &v));
	CHECK(!cache_parse_u64(NULL, &v));
	CHECK(!cache_parse_u64("-1", &v));
	CHECK(!cache_parse_u64("+1", &v));
	CHECK(!cache_parse_u64(" 1", &v));
	CHECK(!cache_parse_u64("1 ", &v));
	CHECK(!cache_parse_u64("0x10", &v));
	CHECK(!cache_parse_u64("1e3", &v));
	CHECK(v == 7); /* untouched by every failure */
}

static int pt(const char *s, int64_t *out)
{
	return cache_parse_time(s, strlen(s), out);
}

static void test_time(void)
{
	int64_t t = 42;
	CHECK(pt("1970-01-01T00:00:00Z", &t) == 0 && t == 0);
	CHECK(pt("2026-01-01T00:00:10Z", &t) == 0 && t == 1767225610);
	CHECK(pt("2024-02-29T23:59:59Z", &t) == 0 && t == 1709251199);
	CHECK(pt("2026-01-01T00:00:10.123456Z", &t) == 0 && t == 1767225610);
	/* n bounds the read: a longer buffer with a shorter n */
	CHECK(cache_parse_time("2026-01-01T00:00:10Zjunk", 20, &t) == 0 &&
	      t == 1767225610);
	t = 42;
	CHECK(pt("2026-01-01T00:00:10", &t) == -EINVAL); /* no Z */
	CHECK(pt("2026-01-01T00:00:10+01:00", &t) == -EINVAL);
	CHECK(pt("2026-01-01 00:00:10Z", &t) == -EINVAL);
	CHECK(pt("2026/01/01T00:00:10Z", &t) == -EINVAL);
	CHECK(pt("2026-0a-01T00:00:10Z", &t) == -EINVAL);
	CHECK(pt("26-01-01T00:00:10Z", &t) == -EINVAL);
	CHECK(pt("", &t) == -EINVAL);
	CHECK(cache_parse_time("2026-01-01T00:00:10Z", 19, &t) == -EINVAL);
	CHECK(t == 42);
}

int main(void)
{
	test_u64();
	test_time();
	return check_done("parse");
}
