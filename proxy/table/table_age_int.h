/*
 * table_age_int: Go's duration.HumanDuration, the ages kubectl get prints
 * ("45s", "2m45s", "3h", "5d2h", "2y70d"), shared by the Table printers of
 * the wing. Pure: any thread.
 */
#ifndef PROXY_TABLE_AGE_INT_H
#define PROXY_TABLE_AGE_INT_H

#include <stddef.h>
#include <stdint.h>

/* Go's duration.HumanDuration of seconds: "45s", "2m45s", "5h", "3d",
 * into out, cut to outlen. */
void proxy_table_age_human(int64_t seconds, char *out, size_t outlen);

#endif
