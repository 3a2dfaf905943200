/*
 * table_age: how the apiserver prints an age (see table_age_int.h).
 */
#include "proxy/table/table_age_int.h"

#include <stdio.h>

void proxy_table_age_human(int64_t seconds, char *out, size_t outlen)
{
	/* Go's k8s.io/apimachinery/pkg/util/duration.HumanDuration */
	if (seconds < -1) {
		snprintf(out, outlen, "<invalid>");
		return;
	}
	if (seconds < 0)
		seconds = 0;
	int64_t m = seconds / 60, h = seconds / 3600;
	if (seconds < 120)
		snprintf(out, outlen, "%llds", (long long)seconds);
	else if (m < 10 && seconds % 60)
		snprintf(out, outlen, "%lldm%llds", (long long)m,
			 (long long)(seconds % 60));
	else if (m < 180)
		snprintf(out, outlen, "%lldm", (long long)m);
	else if (h < 8 && m % 60)
		snprintf(out, outlen, "%lldh%lldm", (long long)h,
			 (long long)(m % 60));
	else if (h < 48)
		snprintf(out, outlen, "%lldh", (long long)h);
	else if (h < 192 && h % 24)
		snprintf(out, outlen, "%lldd%lldh", (long long)(h / 24),
			 (long long)(h % 24));
	else if (h < 24 * 365 * 2)
		snprintf(out, outlen, "%lldd", (long long)(h / 24));
	else if (h < 24 * 365 * 8 && (h / 24) % 365)
		snprintf(out, outlen, "%lldy%lldd", (long long)(h / 24 / 365),
			 (long long)((h / 24) % 365));
	else
		snprintf(out, outlen, "%lldy", (long long)(h / 24 / 365));
}
