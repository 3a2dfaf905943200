/*
 * test_age: proxy_table_age_human against the rules of apimachinery's
 * duration.HumanDuration, at each boundary where the format changes:
 * seconds below 2m, minutes with seconds below 10m, minutes below 3h,
 * hours with minutes below 8h, hours below 48h, days with hours below
 * 8d, days below 2y, years with days below 8y, then years; the two
 * seconds of clock skew it forgives, "<invalid>" beyond, and a short
 * output buffer.
 */
#include <stdint.h>
#include <string.h>

#include "proxy/table/table_age_int.h"
#include "check.h"

#define MIN 60
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)
#define YEAR (365 * (int64_t)DAY)

static const char *age(int64_t s)
{
	static char out[32];
	memset(out, 'X', sizeof(out));
	proxy_table_age_human(s, out, sizeof(out));
	return out;
}

static void test_seconds(void)
{
	CHECK_STR(age(0), "0s");
	CHECK_STR(age(1), "1s");
	CHECK_STR(age(59), "59s");
	CHECK_STR(age(60), "60s"); /* seconds until two minutes */
	CHECK_STR(age(119), "119s");
	/* up to a second in the future is "now"; more is invalid */
	CHECK_STR(age(-1), "0s");
	CHECK_STR(age(-2), "<invalid>");
	CHECK_STR(age(-1000000), "<invalid>");
}

static void test_minutes(void)
{
	CHECK_STR(age(2 * MIN), "2m");
	CHECK_STR(age(2 * MIN + 1), "2m1s");
	CHECK_STR(age(9 * MIN + 59), "9m59s");
	CHECK_STR(age(10 * MIN), "10m");
	CHECK_STR(age(10 * MIN + 59), "10m"); /* seconds dropped from 10m */
	CHECK_STR(age(119 * MIN), "119m");
	CHECK_STR(age(3 * HOUR - 1), "179m");
}

static void test_hours(void)
{
	CHECK_STR(age(3 * HOUR), "3h");
	CHECK_STR(age(3 * HOUR + MIN), "3h1m");
	CHECK_STR(age(3 * HOUR + MIN + 59), "3h1m");
	CHECK_STR(age(8 * HOUR - 1), "7h59m");
	CHECK_STR(age(8 * HOUR), "8h");
	CHECK_STR(age(8 * HOUR + 30 * MIN), "8h"); /* minutes dropped */
	CHECK_STR(age(48 * HOUR - 1), "47h");
}

static void test_days(void)
{
	CHECK_STR(age(2 * DAY), "2d");
	CHECK_STR(age(2 * DAY + HOUR), "2d1h");
	CHECK_STR(age(3 * DAY), "3d");
	CHECK_STR(age(8 * DAY - 1), "7d23h");
	CHECK_STR(age(8 * DAY), "8d");
	CHECK_STR(age(8 * DAY + 5 * HOUR), "8d"); /* hours dropped */
	CHECK_STR(age(2 * YEAR - 1), "729d");
}

static void test_years(void)
{
	CHECK_STR(age(2 * YEAR), "2y");
	CHECK_STR(age(2 * YEAR + 70 * DAY), "2y70d");
	CHECK_STR(age(8 * YEAR - 1), "7y364d");
	CHECK_STR(age(8 * YEAR), "8y");
	CHECK_STR(age(8 * YEAR + 200 * DAY), "8y"); /* days dropped */
	CHECK_STR(age(100 * YEAR), "100y");
}

/* Ages on both sides of each boundary, as one table. */
static void test_cases(void)
{
	static const struct {
		int64_t s;
		const char *want;
	} cases[] = {
		{ -5, "<invalid>" },
		{ -1, "0s" },
		{ 0, "0s" },
		{ 45, "45s" },
		{ 119, "119s" },
		{ 120, "2m" },
		{ 165, "2m45s" },
		{ 600, "10m" },
		{ 605, "10m" },
		{ 3 * 3600 - 1, "179m" },
		{ 3 * 3600, "3h" },
		{ 3 * 3600 + 60, "3h1m" },
		{ 8 * 3600 + 60, "8h" },
		{ 47 * 3600, "47h" },
		{ 48 * 3600, "2d" },
		{ 50 * 3600, "2d2h" },
		{ 8 * 86400, "8d" },
		{ 325 * 86400, "325d" },
		{ 730 * 86400, "2y" },
		{ 800 * 86400, "2y70d" },
		{ 9 * 365 * 86400, "9y" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char out[32];
		proxy_table_age_human(cases[i].s, out, sizeof(out));
		CHECK_STR(out, cases[i].want);
	}
}

/* The output is cut to the buffer, and stays a string. */
static void test_short_buffer(void)
{
	char out[4];
	proxy_table_age_human(2 * MIN + 45, out, sizeof(out));
	CHECK_STR(out, "2m4");
	proxy_table_age_human(-5, out, sizeof(out));
	CHECK_STR(out, "<in");
}

int main(void)
{
	test_seconds();
	test_minutes();
	test_hours();
	test_days();
	test_years();
	test_short_buffer();
	test_cases();
	return check_done("table_age");
}
