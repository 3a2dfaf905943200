/*
 * pb_canon: what the protobuf fuzz targets compare (pb_decode.c,
 * pb_roundtrip.c): a JSON object and its protobuf round trip agree up to
 * what the wire cannot tell apart.
 *
 * The wire drops the difference between absent and zero for non-pointer
 * fields, and between null, [] and an absent slice; a Time keeps whole
 * seconds (a MicroTime microseconds), the zero Time is an empty message;
 * an unset Quantity reads "0"; a double has no integer form. So both
 * sides are canonicalised the same way, without the schema: members
 * whose value is null, "", 0, false, "0", {} or [] (after their own
 * canonicalisation) are dropped, RFC 3339 times lose their fraction and
 * the zero time is dropped,
 * integral reals become integers, and an embedded object's kind and
 * apiVersion (which the wire does not carry) are dropped.
 */
#ifndef TESTS_FUZZ_PB_CANON_H
#define TESTS_FUZZ_PB_CANON_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "YYYY-MM-DDTHH:MM:SS[.frac]Z" to whole seconds. */
static inline bool pb_canon_time(const char *s, char *out)
{
	size_t n = strlen(s), y = 0;
	while (y < 4 && y < n && s[y] >= '0' && s[y] <= '9')
		y++;
	if (!y || n < y + 16 || s[y] != '-')
		return false;
	const char *r = s + y; /* "-MM-DDTHH:MM:SS[.frac]Z" */
	size_t rn = n - y;
	if (r[3] != '-' || r[6] != 'T' || r[9] != ':' || r[12] != ':' ||
	    s[n - 1] != 'Z' || (rn > 16 && r[15] != '.'))
		return false;
	for (size_t i = 16; i + 1 < rn; i++)
		if (r[i] < '0' || r[i] > '9')
			return false;
	snprintf(out, 32, "%04d%.15sZ", atoi(s), r);
	return true;
}

static inline bool pb_canon_empty(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_NULL:
	case JSON_FALSE:
		return true;
	case JSON_STRING:
		return json_string_length(v) == 0 ||
		       !strcmp(json_string_value(v), "0") ||
		       !strcmp(json_string_value(v), "0001-01-01T00:00:00Z");
	case JSON_INTEGER:
		return json_integer_value(v) == 0;
	case JSON_REAL:
		return json_real_value(v) == 0;
	case JSON_OBJECT:
		return json_object_size(v) == 0;
	case JSON_ARRAY:
		return json_array_size(v) == 0;
	default:
		return false;
	}
}

static inline json_t *pb_canon_at(json_t *v, int depth);

/* v canonicalised, a new reference (NULL when out of memory). */
static inline json_t *pb_canon(json_t *v)
{
	return pb_canon_at(v, 0);
}

static inline json_t *pb_canon_at(json_t *v, int depth)
{
	char t[32];
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		json_t *o = json_object(), *x;
		const char *k;
		/* an object embedded whole (TypeMeta and ObjectMeta: a
		 * StatefulSet's volumeClaimTemplates, a metadata list's
		 * items) has no kind or apiVersion on the wire */
		bool typed = depth > 0 && json_object_get(v, "metadata");
		json_object_foreach(v, k, x)
		{
			if (typed &&
			    (!strcmp(k, "kind") || !strcmp(k, "apiVersion")))
				continue;
			json_t *c = pb_canon_at(x, depth + 1);
			if (c && !pb_canon_empty(c))
				json_object_set(o, k, c);
			json_decref(c);
		}
		return o;
	}
	case JSON_ARRAY: {
		/* elements stay, zero or not: they are on the wire; a
		 * zero one reads back as its type's zero, so as null */
		json_t *a = json_array(), *x;
		size_t i;
		json_array_foreach(v, i, x)
		{
			json_t *c = pb_canon_at(x, depth + 1);
			if (c && pb_canon_empty(c)) {
				json_decref(c);
				c = json_null();
			}
			json_array_append_new(a, c);
		}
		return a;
	}
	case JSON_STRING:
		if (json_string_length(v) < 31 &&
		    pb_canon_time(json_string_value(v), t))
			return json_string(t);
		return json_incref(v);
	case JSON_REAL: {
		double d = json_real_value(v);
		if (d > -9e18 && d < 9e18 && d == (double)(json_int_t)d)
			return json_integer((json_int_t)d);
		return json_incref(v);
	}
	default:
		return json_incref(v);
	}
}

/* Whether a and b agree once canonicalised; prints both when not. */
static inline bool pb_canon_equal(json_t *a, json_t *b)
{
	json_t *ca = pb_canon(a), *cb = pb_canon(b);
	bool eq = ca && cb && json_equal(ca, cb);
	if (!eq) {
		char *sa = json_dumps(ca, JSON_COMPACT | JSON_SORT_KEYS);
		char *sb = json_dumps(cb, JSON_COMPACT | JSON_SORT_KEYS);
		fprintf(stderr, "canonical forms differ:\n%s\n%s\n",
			sa ? sa : "?", sb ? sb : "?");
		free(sa);
		free(sb);
	}
	json_decref(ca);
	json_decref(cb);
	return eq;
}

#endif
