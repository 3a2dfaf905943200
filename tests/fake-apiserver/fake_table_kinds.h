/*
 * fake_table_kinds: the fake apiserver's own Table printers for the
 * built-in kinds beyond pods, configmaps and namespaces: workloads,
 * services, secrets, serviceaccounts, endpoints, events and leases.
 *
 * Written from the kube-apiserver's printers (kubernetes
 * pkg/printers/internalversion), independently of the proxy's column
 * table, so that the differential test compares two implementations.
 * Each printer turns the decoded object into a jansson array of cells.
 */
#ifndef FAKE_TABLE_KINDS_H
#define FAKE_TABLE_KINDS_H

#include <jansson.h>
#include <time.h>

/* The columnDefinitions JSON for resource res, or NULL when it has no
 * printer here. */
const char *fake_table_kinds_columns(int res);
/* A new array of res's cells for object o (a reference the caller
 * releases), or NULL when res has no printer here. */
json_t *fake_table_kinds_cells(int res, json_t *o, time_t now);

#endif
