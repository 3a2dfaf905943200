/*
 * table_cols_policy: the columns of quota, admission, certificate and
 * API priority-and-fairness kinds: resource quotas, certificate signing
 * requests, webhook configurations, runtime classes, flow schemas and
 * priority level configurations, with their own cell functions.
 */
#include "proxy/table/table_cols_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "proxy/table/table_age_int.h"

/* ---- resource quotas ---- */

/* REQUEST (arg "requests") or LIMIT (arg "limits") of a quota: for each
 * resource of status.hard in name order, "name: used/hard", joined by
 * ", "; LIMIT takes the names that start with "limits.", REQUEST all
 * the others. A quantity absent from status.used prints "0". */
static void c_quota(struct buf *b, const struct tc_row *r, const char *arg)
{
	int hard = tc_at(r, "status.hard"), used = tc_at(r, "status.used");
	int n = tc_members(r->d, hard), i = 0;
	bool limits = !strcmp(arg, "limits");
	struct tc_sbuf s = { BUF_INIT, 0 };
	if (n && json_type(r->d, hard) != JSMN_OBJECT)
		n = 0;
	char **names = n ? xcalloc((size_t)n, sizeof(*names)) : NULL;
	for (int k = n ? json_first(r->d, hard) : -1; k > 0 && i < n;
	     k = json_next(r->d, hard, k))
		names[i++] = tc_dup_str(r->d, k);
	tc_sort_n(names, (size_t)i, sizeof(*names), tc_cmp_str);
	for (int j = 0; j < i; j++) {
		/* "limits" and a dot, with something after the first dot */
		bool is_limit = !strncmp(names[j], "limits.", 7);
		if (is_limit != limits)
			continue;
		char *h = tc_dup_str(r->d, json_get(r->d, hard, names[j]));
		int ut = used >= 0 && json_type(r->d, used) == JSMN_OBJECT ?
				 json_get(r->d, used, names[j]) :
				 -1;
		char *u = tc_is_str(r->d, ut) ? tc_dup_str(r->d, ut) : NULL;
		struct buf t = BUF_INIT;
		buf_printf(&t, "%s: %s/%s", names[j], u ? u : "0",
			   h[0] ? h : "0");
		tc_sb_item(&s, ", ", t.p ? t.p : "", t.p ? t.len : 0);
		buf_free(&t);
		free(u);
		free(h);
	}
	for (int j = 0; j < i; j++)
		free(names[j]);
	free(names);
	tc_sb_put(b, &s, "");
}

/* ---- certificate signing requests ---- */

/* The string at arg, "<none>" when absent or empty. */
static void c_str_or_none_empty(struct buf *b, const struct tc_row *r,
				const char *arg)
{
	char *s = tc_dup_str(r->d, tc_at(r, arg));
	tc_put_str(b, s[0] ? s : "<none>");
	free(s);
}

/* REQUESTEDDURATION: spec.expirationSeconds as a human duration
 * ("10m", "24h"), "<none>" when unset. */
static void c_csr_duration(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	int t = tc_at(r, "spec.expirationSeconds");
	char s[32];
	(void)arg;
	if (tc_is_null(r->d, t)) {
		tc_put_str(b, "<none>");
		return;
	}
	proxy_table_age_human(tc_int_of(r->d, t, 0), s, sizeof(s));
	tc_put_str(b, s);
}

/* CONDITION: Denied, else Approved, else Pending; then ",Failed" with a
 * Failed condition and ",Issued" once a certificate is there. Any
 * condition of a type counts, whatever its status. */
static void c_csr_condition(struct buf *b, const struct tc_row *r,
			    const char *arg)
{
	int conds = tc_at(r, "status.conditions");
	bool approved = false, denied = false, failed = false;
	char s[48];
	(void)arg;
	for (int c = tc_members(r->d, conds) ? json_first(r->d, conds) : -1;
	     c > 0; c = json_next(r->d, conds, c)) {
		int t = json_get(r->d, c, "type");
		approved |= tc_str_eq(r->d, t, "Approved");
		denied |= tc_str_eq(r->d, t, "Denied");
		failed |= tc_str_eq(r->d, t, "Failed");
	}
	int cert = tc_at(r, "status.certificate");
	size_t n = 0;
	if (tc_is_str(r->d, cert))
		json_raw(r->d, cert, &n);
	snprintf(s, sizeof(s), "%s%s%s",
		 denied	  ? "Denied" :
		 approved ? "Approved" :
			    "Pending",
		 failed ? ",Failed" : "", n ? ",Issued" : "");
	tc_put_str(b, s);
}

/* ---- flow control ---- */

/* DISTINGUISHERMETHOD: its type, "<none>" without one. */
static void c_fs_distinguisher(struct buf *b, const struct tc_row *r,
			       const char *arg)
{
	int t = tc_at(r, "spec.distinguisherMethod");
	(void)arg;
	if (tc_is_null(r->d, t))
		tc_put_str(b, "<none>");
	else
		tc_put_token_str(b, r->d, json_get(r->d, t, "type"));
}

/* MISSINGPL: the status of the first Dangling condition, "?" without. */
static void c_fs_missing(struct buf *b, const struct tc_row *r, const char *arg)
{
	int conds = tc_at(r, "status.conditions");
	(void)arg;
	for (int c = tc_members(r->d, conds) ? json_first(r->d, conds) : -1;
	     c > 0; c = json_next(r->d, conds, c))
		if (tc_str_eq(r->d, json_get(r->d, c, "type"), "Dangling")) {
			tc_put_token_str(b, r->d, json_get(r->d, c, "status"));
			return;
		}
	tc_put_str(b, "?");
}

/* A limited priority level's number (arg: nominalConcurrencyShares, or
 * one of spec.limited.limitResponse.queuing's), "<none>" when the level
 * is not limited or (for the queuing ones) does not queue. */
static void c_plc_int(struct buf *b, const struct tc_row *r, const char *arg)
{
	int lim = tc_at(r, "spec.limited"), at = -1;
	if (!tc_is_null(r->d, lim)) {
		if (!strcmp(arg, "nominalConcurrencyShares")) {
			at = lim;
		} else {
			int q = tc_at(r, "spec.limited.limitResponse.queuing");
			at = tc_is_null(r->d, q) ? -1 : q;
		}
	}
	if (at < 0)
		tc_put_str(b, "<none>");
	else
		tc_put_int(b, tc_int_of(r->d, json_get(r->d, at, arg), 0));
}

const struct tc_col tc_resourcequota_cols[] = {
	NAME_COL,
	{ "Request", "string", "",
	  "Request represents a minimum amount of cpu/memory that a container may consume.",
	  0, c_quota, "requests" },
	{ "Limit", "string", "",
	  "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
	  0, c_quota, "limits" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_csr_cols[] = {
	NAME_COL,
	AGE_COL,
	{ "SignerName", "string", "",
	  "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.",
	  0, c_str_or_none_empty, "spec.signerName" },
	{ "Requestor", "string", "", "Base64-encoded PKCS#10 CSR data", 0,
	  tc_cell_str, "spec.username" },
	{ "RequestedDuration", "string", "",
	  "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.",
	  0, c_csr_duration, NULL },
	{ "Condition", "string", "",
	  "Conditions applied to the request, such as approval or denial.", 0,
	  c_csr_condition, NULL },
	TC_END,
};

const struct tc_col tc_webhook_cols[] = {
	NAME_COL,
	{ "Webhooks", "integer", "",
	  "Webhooks indicates the number of webhooks registered in this configuration",
	  0, tc_cell_count, "webhooks" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_runtimeclass_cols[] = {
	NAME_COL,
	{ "Handler", "string", "", "", 0, tc_cell_str, "handler" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_flowschema_cols[] = {
	NAME_COL,
	{ "PriorityLevel", "string", "",
	  "`name` is the name of the priority level configuration being referenced Required.",
	  0, tc_cell_str, "spec.priorityLevelConfiguration.name" },
	{ "MatchingPrecedence", "string", "",
	  "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.",
	  0, tc_cell_int, "spec.matchingPrecedence" },
	{ "DistinguisherMethod", "string", "",
	  "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.",
	  0, c_fs_distinguisher, NULL },
	AGE_COL,
	{ "MissingPL", "string", "",
	  "references a broken or non-existent PriorityLevelConfiguration", 0,
	  c_fs_missing, NULL },
	TC_END,
};

const struct
	tc_col
		tc_plc_cols
			[] = {
				NAME_COL,
				{ "Type", "string", "",
				  "`type` indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required.",
				  0, tc_cell_str, "spec.type" },
				{ "NominalConcurrencyShares", "string", "",
				  "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server's concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a \"jail\" for this priority level that is used to hold some request(s)",
				  0, c_plc_int, "nominalConcurrencyShares" },
				{ "Queues", "string", "",
				  "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.",
				  0, c_plc_int, "queues" },
				{ "HandSize",
				  "string", "", "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.",
				  0, c_plc_int, "handSize" },
				{ "QueueLengthLimit", "string", "",
				  "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.",
				  0, c_plc_int, "queueLengthLimit" },
				AGE_COL,
				TC_END,
			};
