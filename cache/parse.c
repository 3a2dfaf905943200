/*
 * parse: scalar values in the text the apiserver and its clients write
 * (see parse.h).
 */
#include "cache/parse.h"

#include <errno.h>
#include <time.h>

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar
 * (m 1-12; a day past the month's end counts on into the next, as
 * timegm() normalizes it). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400; /* 0-399 */
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d -
		      1; /* from March */
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int cache_parse_time(const char *s, size_t n, int64_t *out)
{
	struct tm tm = { 0 };
	if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
	    s[13] != ':' || s[16] != ':' || s[n - 1] != 'Z')
		return -EINVAL;
	int f[6];
	static const int at[6] = { 0, 5, 8, 11, 14, 17 };
	static const int width[6] = { 4, 2, 2, 2, 2, 2 };
	for (int k = 0; k < 6; k++) {
		int v = 0;
		for (int c = 0; c < width[k]; c++) {
			char ch = s[at[k] + c];
			if (ch < '0' || ch > '9')
				return -EINVAL;
			v = v * 10 + (ch - '0');
		}
		f[k] = v;
	}
	if (f[1] >= 1 && f[1] <= 12) { /* the rest is linear, as in timegm() */
		*out = days_from_civil(f[0], f[1], f[2]) * 86400 + f[3] * 3600 +
		       f[4] * 60 + f[5];
		return 0;
	}
	tm.tm_year = f[0] - 1900;
	tm.tm_mon = f[1] - 1;
	tm.tm_mday = f[2];
	tm.tm_hour = f[3];
	tm.tm_min = f[4];
	tm.tm_sec = f[5];
	*out = (int64_t)timegm(&tm);
	return 0;
}

bool cache_parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return false;
	uint64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false; /* overflow */
		v = v * 10 + d;
	}
	*out = v;
	return true;
}
