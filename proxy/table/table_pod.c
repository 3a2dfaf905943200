/*
 * table_pod: printPod's summary of a pod (see table_pod_int.h), on the cached
 * bytes.
 *
 * Init containers are walked first: one that has not finished makes the
 * pod Init:N/M (or Init:<reason>), unless the pod is already Initialized;
 * a restartable init container (a sidecar, restartPolicy Always) that
 * has started counts towards READY like a container. Then the containers,
 * last first, each able to override STATUS with its waiting or terminated
 * reason. RESTARTS adds restart counts, with the age of the latest
 * termination when there were any.
 */
#include "proxy/table/table_pod_int.h"

#include <stdio.h>
#include <string.h>

#include "cache/parse.h"
#include "proxy/table/table_age_int.h"

/* A string member of obj, unescaped into out ("" when absent). */
static const char *str_at(const struct json_doc *d, int obj, const char *path,
			  char *out, size_t outlen)
{
	int t = obj >= 0 ? json_path(d, obj, path) : -1;
	out[0] = '\0';
	if (t >= 0 && json_type(d, t) == JSMN_STRING)
		json_str(d, t, out, outlen);
	return out;
}

static int64_t int_at(const struct json_doc *d, int obj, const char *path)
{
	int t = obj >= 0 ? json_path(d, obj, path) : -1;
	int64_t v = 0;
	if (t >= 0)
		json_i64(d, t, &v);
	return v;
}

static bool true_at(const struct json_doc *d, int obj, const char *path)
{
	int t = obj >= 0 ? json_path(d, obj, path) : -1;
	return t >= 0 && json_type(d, t) == JSMN_PRIMITIVE &&
	       d->js[d->tok[t].start] == 't';
}

static int count(const struct json_doc *d, int arr)
{
	return arr >= 0 && (json_type(d, arr) == JSMN_ARRAY ||
			    json_type(d, arr) == JSMN_OBJECT) ?
		       d->tok[arr].size :
		       0;
}

/* The later of *last and the container's last termination. */
static void latest(const struct json_doc *d, int cs, int64_t *last)
{
	char ts[64];
	int64_t t;
	str_at(d, cs, "lastState.terminated.finishedAt", ts, sizeof(ts));
	if (ts[0] && !cache_parse_time(ts, strlen(ts), &t) && t > *last)
		*last = t;
}

/* A terminated state's reason, or Signal:N / ExitCode:N. */
static void terminated_reason(const struct json_doc *d, int term,
			      const char *pfx, char *reason, size_t rlen)
{
	char r[128];
	str_at(d, term, "reason", r, sizeof(r));
	if (r[0])
		snprintf(reason, rlen, "%s%s", pfx, r);
	else if (int_at(d, term, "signal"))
		snprintf(reason, rlen, "%sSignal:%lld", pfx,
			 (long long)int_at(d, term, "signal"));
	else
		snprintf(reason, rlen, "%sExitCode:%lld", pfx,
			 (long long)int_at(d, term, "exitCode"));
}

static bool condition_true(const struct json_doc *d, int conds,
			   const char *type)
{
	for (int c = json_first(d, conds); c > 0; c = json_next(d, conds, c)) {
		char t[64], st[16];
		if (!strcmp(str_at(d, c, "type", t, sizeof(t)), type))
			return !strcmp(str_at(d, c, "status", st, sizeof(st)),
				       "True");
	}
	return false;
}

/* Whether the init container named name is restartable (a sidecar). */
static bool sidecar(const struct json_doc *d, int inits, const char *name)
{
	for (int c = json_first(d, inits); c > 0; c = json_next(d, inits, c)) {
		char n[256], rp[16];
		if (!strcmp(str_at(d, c, "name", n, sizeof(n)), name))
			return !strcmp(
				str_at(d, c, "restartPolicy", rp, sizeof(rp)),
				"Always");
	}
	return false;
}

void proxy_table_pod_summary(const struct json_doc *d, time_t now,
			     struct proxy_table_pod_summary *out)
{
	int spec = json_get(d, 0, "spec"), status = json_get(d, 0, "status");
	int meta = json_get(d, 0, "metadata");
	int conds = json_get(d, status, "conditions");
	int inits = json_get(d, spec, "initContainers");
	int restarts = 0, side_restarts = 0;
	int64_t last = 0, side_last = 0;
	char phase[64], tmp[160];
	char *reason = out->status;
	size_t rlen = sizeof(out->status);

	out->ready = 0;
	out->total = count(d, json_get(d, spec, "containers"));
	for (int c = json_first(d, inits); c > 0; c = json_next(d, inits, c))
		if (!strcmp(str_at(d, c, "restartPolicy", tmp, sizeof(tmp)),
			    "Always"))
			out->total++;
	str_at(d, status, "phase", phase, sizeof(phase));
	out->done = !strcmp(phase, "Succeeded") ? "Succeeded" :
		    !strcmp(phase, "Failed")	? "Failed" :
						  NULL;
	snprintf(reason, rlen, "%s", phase);
	if (str_at(d, status, "reason", tmp, sizeof(tmp))[0])
		snprintf(reason, rlen, "%s", tmp);
	for (int c = json_first(d, conds); c > 0; c = json_next(d, conds, c)) {
		char t[64], r[64];
		if (!strcmp(str_at(d, c, "type", t, sizeof(t)),
			    "PodScheduled") &&
		    !strcmp(str_at(d, c, "reason", r, sizeof(r)),
			    "SchedulingGated"))
			snprintf(reason, rlen, "SchedulingGated");
	}

	/* init containers */
	int ics = json_get(d, status, "initContainerStatuses");
	bool initializing = false;
	int i = 0;
	for (int c = json_first(d, ics); c > 0; c = json_next(d, ics, c), i++) {
		char name[256], wr[128];
		bool side = sidecar(d, inits,
				    str_at(d, c, "name", name, sizeof(name)));
		int term = json_path(d, c, "state.terminated");
		restarts += (int)int_at(d, c, "restartCount");
		latest(d, c, &last);
		if (side) {
			side_restarts += (int)int_at(d, c, "restartCount");
			latest(d, c, &side_last);
		}
		str_at(d, c, "state.waiting.reason", wr, sizeof(wr));
		if (term >= 0 && int_at(d, term, "exitCode") == 0)
			continue;
		if (side && true_at(d, c, "started")) {
			out->ready += true_at(d, c, "ready");
			continue;
		}
		if (term >= 0)
			terminated_reason(d, term, "Init:", reason, rlen);
		else if (wr[0] && strcmp(wr, "PodInitializing"))
			snprintf(reason, rlen, "Init:%s", wr);
		else
			snprintf(reason, rlen, "Init:%d/%d", i,
				 count(d, inits));
		initializing = true;
		break;
	}
	if (!initializing || condition_true(d, conds, "Initialized")) {
		int cs = json_get(d, status, "containerStatuses");
		int n = count(d, cs), idx[64], k = 0;
		bool running = false;
		restarts = side_restarts;
		last = side_last;
		for (int c = json_first(d, cs); c > 0 && k < 64;
		     c = json_next(d, cs, c))
			idx[k++] = c;
		for (int j = (n < 64 ? n : 64) - 1; j >= 0; j--) {
			int c = idx[j]; /* last first */
			int term = json_path(d, c, "state.terminated");
			char wr[128];
			restarts += (int)int_at(d, c, "restartCount");
			latest(d, c, &last);
			str_at(d, c, "state.waiting.reason", wr, sizeof(wr));
			if (wr[0]) {
				snprintf(reason, rlen, "%s", wr);
			} else if (term >= 0) {
				terminated_reason(d, term, "", reason, rlen);
			} else if (true_at(d, c, "ready") &&
				   json_path(d, c, "state.running") >= 0) {
				running = true;
				out->ready++;
			}
		}
		if (!strcmp(reason, "Completed") && running)
			snprintf(reason, rlen, "%s",
				 condition_true(d, conds, "Ready") ?
					 "Running" :
					 "NotReady");
	}
	int del = json_get(d, meta, "deletionTimestamp");
	if (del >= 0 && json_type(d, del) == JSMN_STRING) {
		if (!strcmp(str_at(d, status, "reason", tmp, sizeof(tmp)),
			    "NodeLost"))
			snprintf(reason, rlen, "Unknown");
		else if (strcmp(phase, "Succeeded") && strcmp(phase, "Failed"))
			snprintf(reason, rlen, "Terminating");
	}
	if (restarts && last) {
		char ago[32];
		proxy_table_age_human((int64_t)now - last, ago, sizeof(ago));
		snprintf(out->restarts, sizeof(out->restarts), "%d (%s ago)",
			 restarts, ago);
	} else {
		snprintf(out->restarts, sizeof(out->restarts), "%d", restarts);
	}
}
