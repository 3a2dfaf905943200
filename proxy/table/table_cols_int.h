/*
 * table_cols_int: the columns the kube-apiserver prints for each built-in
 * kind (kubectl get's NAME READY UP-TO-DATE ...), one declarative table
 * of column definitions with a named cell function each. Internal to the
 * table wing: table.c and the column files include it, and their tests.
 *
 * A pod's READY, STATUS and RESTARTS come from one summary of its
 * containers (table_pod.c); custom resources get their columns from
 * their CRD (table_crd.c). Kinds in neither print NAME and AGE.
 *
 * The first part is what the rest of the wing uses (proxy_table_cols_).
 * The rest, with the short prefix tc_, is what the files of the column
 * table share, and nothing outside them (and their tests) may use:
 *
 *   table_cols.c          printers[]: which column array each kind prints
 *   table_cols_cell.c     reading the object, writing cells, common cells
 *   table_cols_work.c     pods and workloads, jobs, PDBs, autoscalers
 *   table_cols_net.c      services, endpoints, slices, ingresses, policies
 *   table_cols_store.c    config maps, secrets, service accounts, volumes
 *   table_cols_cluster.c  namespaces, nodes, events, leases, RBAC, CRDs
 *   table_cols_policy.c   quotas, CSRs, webhooks, runtime and flow control
 *
 * A cell function writes exactly one JSON value (a string, an integer or
 * a boolean) for one row; arg is the column's argument, often a dotted
 * JSON path. Every helper takes a token that may be absent (-1).
 *
 * Everything here is pure: any thread, nothing suspends, nothing kept.
 */
#ifndef PROXY_TABLE_COLS_INT_H
#define PROXY_TABLE_COLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cache/json.h"
#include "config/buf.h"
#include "proxy/table/table_pod_int.h"

/* ---- for the wing ---- */

/* The columns of one built-in kind. */
struct proxy_table_cols;

/* The columns of a built-in kind, or NULL. Static; never freed. */
const struct proxy_table_cols *proxy_table_cols_find(const char *group,
						     const char *resource);
/*
 * The parts of an object that p's cells and the row's
 * PartialObjectMetadata read, as a parse shape (cache/json.h): all but
 * metadata.managedFields, or less for a kind whose printer says so (a
 * pod's, tc_pod_shape). Cells made from a parse with it are the cells
 * made from the whole object.
 */
const struct json_shape *
proxy_table_cols_shape(const struct proxy_table_cols *p);
/* The metadata as a row reads it: all but managedFields, which no column
 * reads and which is often an object's largest part. */
extern const struct json_shape tc_meta_shape;

/* Their columnDefinitions as a JSON array. */
void proxy_table_cols_definitions(struct buf *b,
				  const struct proxy_table_cols *p);
/* One row's cells, comma-separated JSON values without brackets, for
 * the object parsed in d (its root at token 0), at time now. pod: its
 * summary when the caller made one already (a pod's, at now), else NULL:
 * the first of READY, STATUS and RESTARTS makes it, and the others use
 * it. */
void proxy_table_cols_cells(struct buf *b, const struct proxy_table_cols *p,
			    const struct json_doc *d, time_t now,
			    const struct proxy_table_pod_summary *pod);

/* The NAME and AGE column descriptions, word for word as the apiserver
 * sends them; every printer of the wing uses these. */
extern const char proxy_table_cols_name_description[],
	proxy_table_cols_age_description[];

/* ---- for the column files: reading the object ---- */

/* A pod's summary, made once a row (tc_pod_summary()). */
struct tc_pod {
	struct proxy_table_pod_summary sum;
	bool made;
};

/* One row: the object parsed in d (its root at token 0), at time now;
 * pod: where its pod summary is kept for the row, or NULL (made for
 * each column that asks). */
struct tc_row {
	const struct json_doc *d;
	time_t now;
	struct tc_pod *pod;
};

typedef void (*tc_cell_fn)(struct buf *b, const struct tc_row *r,
			   const char *arg);

struct tc_col {
	const char *name, *type, *format, *desc;
	int priority;
	tc_cell_fn cell;
	const char *arg; /* the cell function's argument, often a path */
};

/* Ends every column array, so that printers[] needs no sizes. */
#define TC_END                                        \
	{                                             \
		NULL, NULL, NULL, NULL, 0, NULL, NULL \
	}

/* json_str_eq (raw text, escapes unread) for a token that may be
 * absent. */
bool tc_str_eq(const struct json_doc *d, int t, const char *s);
/* The token at the dotted path from the root, -1 when absent or NULL. */
int tc_at(const struct tc_row *r, const char *path);
bool tc_is_str(const struct json_doc *d, int t);
/* Absent, or the literal null. */
bool tc_is_null(const struct json_doc *d, int t);
/* String token t unescaped, malloc'd ("" when t is not a string). */
char *tc_dup_str(const struct json_doc *d, int t);
/* An integer primitive, dflt when absent or not an integer. */
int64_t tc_int_of(const struct json_doc *d, int t, int64_t dflt);
/* Items of an array or object, 0 for anything else. */
int tc_members(const struct json_doc *d, int t);
/* A timestamp string at t as unix seconds; false when absent/zero. */
bool tc_time_of(const struct json_doc *d, int t, int64_t *out);
/* qsort, which must not be given a NULL base even for no items. */
void tc_sort_n(void *base, size_t n, size_t size,
	       int (*cmp)(const void *, const void *));
/* strcmp for an array of char *. */
int tc_cmp_str(const void *a, const void *b);

/* ---- writing cells ---- */

/* s as a JSON string; NULL as "". */
void tc_put_str(struct buf *b, const char *s);
/* s's text as a JSON string, then s is freed (a cell built in a buf). */
void tc_put_buf(struct buf *b, struct buf *s);
void tc_put_token_str(struct buf *b, const struct json_doc *d, int t);
void tc_put_int(struct buf *b, int64_t v);
/* translateTimestampSince: the age of t, "<unknown>" when unset. */
void tc_put_since(struct buf *b, const struct tc_row *r, int t);

/* A growing string for joined lists. */
struct tc_sbuf {
	struct buf b;
	int n; /* items added */
};

/* Appends v, after sep unless it is the first item. */
void tc_sb_item(struct tc_sbuf *s, const char *sep, const char *v, size_t len);
void tc_sb_token(struct tc_sbuf *s, const char *sep, const struct json_doc *d,
		 int t);
/* Writes the joined string as a cell (empty when it is "") and resets. */
void tc_sb_put(struct buf *out, struct tc_sbuf *s, const char *empty);

/* ---- cells more than one area uses ---- */

void tc_cell_name(struct buf *b, const struct tc_row *r, const char *arg);
void tc_cell_age(struct buf *b, const struct tc_row *r, const char *arg);
void tc_cell_str(struct buf *b, const struct tc_row *r, const char *arg);
void tc_cell_str_or_none(struct buf *b, const struct tc_row *r,
			 const char *arg);
void tc_cell_int(struct buf *b, const struct tc_row *r, const char *arg);
void tc_cell_count(struct buf *b, const struct tc_row *r, const char *arg);
void tc_cell_labels(struct buf *b, const struct tc_row *r, const char *arg);
void tc_cell_selector(struct buf *b, const struct tc_row *r, const char *arg);
/* A metav1.LabelSelector (token sel of d, or -1) as the labels package
 * prints it: "a=b,k in (x,y),!z"; nothing for a nil or empty one. */
void tc_selector(struct buf *out, const struct json_doc *d, int sel);
void tc_cell_bool(struct buf *b, const struct tc_row *r, const char *arg);
/* "Kind/Name" of the reference at arg (roleRef, spec.scaleTargetRef). */
void tc_cell_kind_name(struct buf *b, const struct tc_row *r, const char *arg);

#define NAME_COL                                                             \
	{                                                                    \
		"Name", "string", "name", proxy_table_cols_name_description, \
			0, tc_cell_name, NULL                                \
	}
#define AGE_COL                                                           \
	{                                                                 \
		"Age", "string", "", proxy_table_cols_age_description, 0, \
			tc_cell_age, NULL                                 \
	}

/* ---- the column arrays, each ended by TC_END ---- */

/* table_cols_work.c */
extern const struct json_shape tc_pod_shape;
extern const struct tc_col tc_pod_cols[], tc_deployment_cols[],
	tc_replicaset_cols[], tc_statefulset_cols[], tc_daemonset_cols[],
	tc_job_cols[], tc_cronjob_cols[], tc_replicationcontroller_cols[],
	tc_pdb_cols[], tc_hpa_cols[], tc_podtemplate_cols[],
	tc_controllerrevision_cols[];
/* table_cols_net.c */
extern const struct tc_col tc_service_cols[], tc_endpoints_cols[],
	tc_endpointslice_cols[], tc_ingressclass_cols[], tc_ingress_cols[],
	tc_networkpolicy_cols[];
/* table_cols_store.c */
extern const struct tc_col tc_configmap_cols[], tc_secret_cols[],
	tc_serviceaccount_cols[], tc_storageclass_cols[], tc_pv_cols[],
	tc_pvc_cols[], tc_csidriver_cols[], tc_volumeattachment_cols[];
/* table_cols_cluster.c */
extern const struct tc_col tc_namespace_cols[], tc_event_cols[],
	tc_events_event_cols[], tc_lease_cols[], tc_created_cols[],
	tc_rolebinding_cols[], tc_clusterrolebinding_cols[],
	tc_priorityclass_cols[], tc_node_cols[];
/* table_cols_policy.c */
extern const struct tc_col tc_resourcequota_cols[], tc_csr_cols[],
	tc_webhook_cols[], tc_runtimeclass_cols[], tc_flowschema_cols[],
	tc_plc_cols[];

#endif
