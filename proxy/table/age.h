/*
 * age: Go's duration.HumanDuration, the ages kubectl get prints ("45s",
 * "2m45s", "3h", "5d2h", "2y70d"), shared by the Table printers.
 */
#ifndef PROXY_AGE_H
#define PROXY_AGE_H

#include <stddef.h>
#include <stdint.h>

/* Go's duration.HumanDuration of seconds: "45s", "2m45s", "5h", "3d". */
void proxy_human_age(int64_t seconds, char *out, size_t outlen);

#endif
