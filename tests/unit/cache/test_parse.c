/*
 * test_parse: the resourceVersion/limit rule and RFC 3339 timestamps,
 * with the malformed and overflowing inputs clients send.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

/* Every field in its range and past it (a 31st of April, hour 99, the
 * 60th second, month 0 and 13): what timegm() makes of the same, for
 * years from 0000 to 9999, leap and not. */
static void test_time_as_timegm(void)
{
	static const int years[] = { 0,	   1,	 4,    99,   100,  400,
				     1599, 1600, 1700, 1900, 1969, 1970,
				     1971, 2000, 2024, 2026, 2100, 9999 };
	static const int months[] = { 0, 1, 2, 3, 4, 11, 12, 13, 99 };
	static const int days[] = { 0, 1, 28, 29, 30, 31, 32, 99 };
	static const int hms[][3] = { { 0, 0, 0 },    { 23, 59, 59 },
				      { 24, 0, 0 },   { 12, 60, 60 },
				      { 99, 99, 99 }, { 7, 8, 9 } };
	unsigned same = 0, all = 0;
	for (size_t y = 0; y < sizeof(years) / sizeof(*years); y++)
		for (size_t m = 0; m < sizeof(months) / sizeof(*months); m++)
			for (size_t d = 0; d < sizeof(days) / sizeof(*days);
			     d++)
				for (size_t t = 0;
				     t < sizeof(hms) / sizeof(*hms); t++) {
					char s[32];
					snprintf(
						s, sizeof(s),
						"%04d-%02d-%02dT%02d:%02d:%02dZ",
						years[y], months[m], days[d],
						hms[t][0], hms[t][1],
						hms[t][2]);
					struct tm tm = {
						.tm_year = years[y] - 1900,
						.tm_mon = months[m] - 1,
						.tm_mday = days[d],
						.tm_hour = hms[t][0],
						.tm_min = hms[t][1],
						.tm_sec = hms[t][2],
					};
					int64_t want = (int64_t)timegm(&tm),
						got = 0;
					all++;
					same += pt(s, &got) == 0 && got == want;
				}
	CHECK(all > 7000 && same == all);
}

int main(void)
{
	test_u64();
	test_time();
	test_time_as_timegm();
	return check_done("parse");
}
