/*
 * fake_table_kinds_read: the small readers and cell builders the
 * fake's per-kind printers share (see fake_table_kinds_int.h):
 * members by dotted path, times and ages, joined lists, labels and
 * selectors as the apiserver formats them, and the common cells.
 */
#include "fake_table_kinds_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_table.h"

json_t *tk_get(json_t *o, const char *path)
{
	char part[64];
	while (o && *path) {
		size_t n = strcspn(path, ".");
		snprintf(part, sizeof(part), "%.*s", (int)n, path);
		o = json_object_get(o, part);
		path += n + (path[n] == '.');
	}
	return json_is_null(o) ? NULL : o;
}

const char *tk_sget(json_t *o, const char *path)
{
	const char *s = json_string_value(tk_get(o, path));
	return s ? s : "";
}

json_int_t tk_iget(json_t *o, const char *path, json_int_t dflt)
{
	json_t *v = tk_get(o, path);
	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

json_t *tk_str(const char *s)
{
	return json_string(s);
}

json_t *tk_fmt(const char *f, ...)
{
	char s[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(s, sizeof(s), f, ap);
	va_end(ap);
	return json_string(s);
}

/* Seconds since the epoch of an RFC 3339 time, or -1. */
long long tk_parse_time(const char *ts)
{
	struct tm tm;
	const char *end;
	if (!ts || !*ts)
		return -1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || (*end != 'Z' && *end != '.'))
		return -1;
	return (long long)timegm(&tm);
}

json_t *tk_since(const char *ts, time_t now)
{
	char out[32];
	long long t = tk_parse_time(ts);
	if (t < 0)
		return tk_str("<unknown>");
	fake_human_duration((long long)now - t, out, sizeof(out));
	return tk_str(out);
}

void tk_add(struct tk_list *l, const char *sep, const char *v)
{
	int w = snprintf(l->s + l->n, sizeof(l->s) - l->n, "%s%s",
			 l->n ? sep : "", v);
	if (w > 0 && l->n + (size_t)w < sizeof(l->s))
		l->n += (size_t)w;
}

int tk_by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* labels.FormatLabels. */
json_t *tk_labels_cell(json_t *m)
{
	const char *k, *keys[64];
	json_t *v;
	size_t n = 0;
	struct tk_list l = { "", 0 };
	json_object_foreach(m, k, v) if (n < 64) keys[n++] = k;
	qsort(keys, n, sizeof(*keys), tk_by_str);
	for (size_t i = 0; i < n; i++) {
		char kv[512];
		snprintf(kv, sizeof(kv), "%s=%s", keys[i],
			 json_string_value(json_object_get(m, keys[i])) ?: "");
		tk_add(&l, ",", kv);
	}
	return tk_str(n ? l.s : "<none>");
}

/* One selector requirement: its key and its text. */
struct req {
	char key[256], text[768];
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct req *)a)->key,
		      ((const struct req *)b)->key);
}

/* LabelSelectorAsSelector(sel).String() into out. */
void tk_selector_string(json_t *sel, struct tk_list *out)
{
	struct req r[64];
	size_t n = 0, i;
	const char *k;
	json_t *v, *e;
	json_object_foreach(json_object_get(sel, "matchLabels"), k, v)
	{
		if (n == 64)
			break;
		snprintf(r[n].key, sizeof(r[n].key), "%s", k);
		snprintf(r[n].text, sizeof(r[n].text), "%s=%s", k,
			 json_string_value(v) ?: "");
		n++;
	}
	json_array_foreach(json_object_get(sel, "matchExpressions"), i, e)
	{
		const char *op = tk_sget(e, "operator"),
			   *key = tk_sget(e, "key");
		if (n == 64)
			break;
		snprintf(r[n].key, sizeof(r[n].key), "%s", key);
		if (!strcmp(op, "Exists")) {
			snprintf(r[n].text, sizeof(r[n].text), "%s", key);
		} else if (!strcmp(op, "DoesNotExist")) {
			snprintf(r[n].text, sizeof(r[n].text), "!%s", key);
		} else {
			const char *vals[32];
			size_t nv = 0, j;
			json_t *x;
			struct tk_list l = { "", 0 };
			json_array_foreach(json_object_get(e, "values"), j, x)
			{
				if (nv < 32)
					vals[nv++] = json_string_value(x) ?: "";
			}
			qsort(vals, nv, sizeof(*vals), tk_by_str);
			for (j = 0; j < nv; j++)
				tk_add(&l, ",", vals[j]);
			snprintf(r[n].text, sizeof(r[n].text), "%s %s (%s)",
				 key, strcmp(op, "NotIn") ? "in" : "notin",
				 l.s);
		}
		n++;
	}
	qsort(r, n, sizeof(*r), by_key);
	for (i = 0; i < n; i++)
		tk_add(out, ",", r[i].text);
}

/* metav1.FormatLabelSelector. */
json_t *tk_selector_cell(json_t *sel)
{
	struct tk_list l = { "", 0 };
	tk_selector_string(sel, &l);
	return tk_str(l.n ? l.s : "<none>");
}

/* layoutContainerCells: member ("name" or "image") of each container. */
json_t *tk_containers_cell(json_t *cs, const char *member)
{
	struct tk_list l = { "", 0 };
	size_t i;
	json_t *c;
	json_array_foreach(cs, i, c)
	{
		if (i)
			tk_add(&l, "", ",");
		tk_add(&l, "", tk_sget(c, member));
	}
	return tk_str(l.s);
}

json_t *tk_row(void)
{
	return json_array();
}

void tk_push(json_t *r, json_t *cell)
{
	json_array_append_new(r, cell);
}

void tk_name_cell(json_t *r, json_t *o)
{
	tk_push(r, tk_str(tk_sget(o, "metadata.name")));
}

void tk_age_cell(json_t *r, json_t *o, time_t now)
{
	tk_push(r, tk_since(tk_sget(o, "metadata.creationTimestamp"), now));
}

/* CONTAINERS, IMAGES of a pod template spec. */
void tk_template_cells(json_t *r, json_t *podspec)
{
	tk_push(r, tk_containers_cell(json_object_get(podspec, "containers"),
				      "name"));
	tk_push(r, tk_containers_cell(json_object_get(podspec, "containers"),
				      "image"));
}
