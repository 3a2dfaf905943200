/*
 * table_pod_int: what the apiserver's printPod computes once for a pod's
 * READY, STATUS and RESTARTS cells, and whether its row is Completed
 * (for table.c and table_cols_work.c). Pure: any thread.
 */
#ifndef PROXY_TABLE_POD_INT_H
#define PROXY_TABLE_POD_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cache/json.h"

struct proxy_table_pod_summary {
	int ready, total;  /* READY: ready/total (sidecars counted) */
	char status[160];  /* STATUS: phase, reason, Init:..., Terminating */
	char restarts[64]; /* RESTARTS: "3", or "3 (5m ago)" */
	const char *done;  /* "Succeeded", "Failed" or NULL: the row's
			      * Completed condition */
};

/* Summarize the pod parsed in d (root at token 0), ages as of now. */
void proxy_table_pod_summary(const struct json_doc *d, time_t now,
			     struct proxy_table_pod_summary *out);

#endif
