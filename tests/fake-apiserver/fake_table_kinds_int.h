/*
 * fake_table_kinds_int: what the files of the fake's per-kind printers
 * share, and nothing else may use (the rest of the fake sees only
 * fake_table_kinds.h); the admin kinds' printers (fake_kinds_admin.c)
 * read their objects with its readers too. The short prefix tk_ marks
 * it:
 *
 *   fake_table_kinds.c          printers[]: which printer each kind has
 *   fake_table_kinds_read.c     reading the object, building the cells
 *   fake_table_kinds_work.c     workloads, jobs, PDBs, autoscalers
 *   fake_table_kinds_net.c      services, endpoints, slices, ingresses,
 *                               network policies
 *   fake_table_kinds_cluster.c  secrets, service accounts, events,
 *                               leases, RBAC, CRDs, priority and storage
 *                               classes, nodes, volumes and claims
 *
 * A printer turns one decoded object into a new jansson array of its
 * cells (a reference the caller releases), at time now. Paths are
 * dotted member paths ("spec.template.spec"). Ages are Go's
 * duration.HumanDuration (fake_human_duration) of the time since a
 * timestamp; "<unknown>" when the timestamp is unset.
 *
 * Everything here is pure: any thread, nothing kept.
 */
#ifndef FAKE_TABLE_KINDS_INT_H
#define FAKE_TABLE_KINDS_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* ---- reading the object ---- */

/* The value at path under o (borrowed), or NULL when absent or null. */
json_t *tk_get(json_t *o, const char *path);
/* The string at path, or "" (borrowed from o). */
const char *tk_sget(json_t *o, const char *path);
/* The integer at path, or dflt. */
json_int_t tk_iget(json_t *o, const char *path, json_int_t dflt);
/* Seconds since the epoch of an RFC 3339 time, or -1. */
long long tk_parse_time(const char *ts);
/* qsort's comparison of two const char *. */
int tk_by_str(const void *a, const void *b);

/* A growing list of strings, joined by a separator; silently cut at
 * its size. */
struct tk_list {
	char s[2048];
	size_t n;
};

/* Append v to l, after sep unless l is empty. */
void tk_add(struct tk_list *l, const char *sep, const char *v);
/* LabelSelectorAsSelector(sel).String() appended to out. */
void tk_selector_string(json_t *sel, struct tk_list *out);

/* ---- cells: each a new reference ---- */

json_t *tk_str(const char *s);
json_t *tk_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* The age of timestamp ts at now, "<unknown>" when unset. */
json_t *tk_since(const char *ts, time_t now);
/* labels.FormatLabels of the map m. */
json_t *tk_labels_cell(json_t *m);
/* metav1.FormatLabelSelector. */
json_t *tk_selector_cell(json_t *sel);
/* layoutContainerCells: member ("name" or "image") of each container. */
json_t *tk_containers_cell(json_t *cs, const char *member);

/* ---- rows ---- */

/* A new empty row. */
json_t *tk_row(void);
/* Append cell to row r, which takes the reference. */
void tk_push(json_t *r, json_t *cell);
/* NAME: metadata.name. */
void tk_name_cell(json_t *r, json_t *o);
/* AGE: since metadata.creationTimestamp. */
void tk_age_cell(json_t *r, json_t *o, time_t now);
/* CONTAINERS, IMAGES of a pod template spec. */
void tk_template_cells(json_t *r, json_t *podspec);

/* ---- the printers, by file ---- */

/* fake_table_kinds_work.c */
json_t *tk_print_deployment(json_t *o, time_t now);
json_t *tk_print_replicaset(json_t *o, time_t now);
json_t *tk_print_statefulset(json_t *o, time_t now);
json_t *tk_print_daemonset(json_t *o, time_t now);
json_t *tk_print_job(json_t *o, time_t now);
json_t *tk_print_cronjob(json_t *o, time_t now);
json_t *tk_print_rc(json_t *o, time_t now);
json_t *tk_print_pdb(json_t *o, time_t now);
json_t *tk_print_hpa(json_t *o, time_t now);

/* fake_table_kinds_net.c */
json_t *tk_print_service(json_t *o, time_t now);
json_t *tk_print_endpoints(json_t *o, time_t now);
json_t *tk_print_endpointslice(json_t *o, time_t now);
json_t *tk_print_ingressclass(json_t *o, time_t now);
json_t *tk_print_ingress(json_t *o, time_t now);
json_t *tk_print_networkpolicy(json_t *o, time_t now);

/* fake_table_kinds_cluster.c */
json_t *tk_print_secret(json_t *o, time_t now);
json_t *tk_print_serviceaccount(json_t *o, time_t now);
json_t *tk_print_event(json_t *o, time_t now);
/* An events.k8s.io/v1 Event, as the core Event it converts to. */
json_t *tk_print_event_v1(json_t *o, time_t now);
json_t *tk_print_lease(json_t *o, time_t now);
/* The default table convertor's NAME and CREATED AT (CRDs, roles). */
json_t *tk_print_created(json_t *o, time_t now);
json_t *tk_print_binding(json_t *o, time_t now);
json_t *tk_print_priorityclass(json_t *o, time_t now);
json_t *tk_print_storageclass(json_t *o, time_t now);
json_t *tk_print_node(json_t *o, time_t now);
json_t *tk_print_pv(json_t *o, time_t now);
json_t *tk_print_pvc(json_t *o, time_t now);

#endif
