/*
 * pb_schema: the Kubernetes protobuf schema, as tables (rows written in pb_schema_GROUP.c).
 *
 * One row per field of a k8s.io/api or apimachinery message: its field
 * number, its JSON member, how its value is encoded, whether the Go field
 * is a pointer (which decides whether a zero value is on the wire) or
 * repeated, and for a nested message its table. Rows are written in the
 * Go struct order, which is the order of the apiserver's JSON; on the wire
 * fields go in ascending field number.
 *
* The registry of top-level kinds is pb_kinds.h.
 *
 * Shared by the proxy (which encodes cached JSON objects) and the fake
 * apiserver (which decodes request bodies and encodes its answers). The
 * tables are constant data: any thread may read them.
 */
#ifndef CACHE_PB_SCHEMA_H
#define CACHE_PB_SCHEMA_H

#include <stddef.h>

/* How a field's value is encoded. */
enum pb_kind {
	PB_STR,	  /* string */
	PB_BYTES, /* bytes, base64 in JSON */
	PB_BOOL,
	PB_INT,	      /* int32/int64 varint; repeated ones are not packed */
	PB_MSG,	      /* nested message: a JSON object */
	PB_INLINE,    /* embedded Go struct: its members go to the parent */
	PB_MAP_STR,   /* map<string, string> */
	PB_MAP_BYTES, /* map<string, bytes> */
	PB_MAP_QTY,   /* map<string, resource.Quantity> */
	PB_TIME,      /* meta/v1 Time {1 seconds, 2 nanos}: RFC 3339 */
	PB_QTY,	      /* resource.Quantity {1 string} */
	PB_INTSTR,    /* intstr.IntOrString {1 type, 2 intVal, 3 strVal} */
	PB_FIELDSV1,  /* meta/v1 FieldsV1 {1 Raw}: raw JSON */
	PB_MICROTIME, /* meta/v1 MicroTime {1 seconds, 2 nanos}: RFC 3339 with
		       * 6 decimals ("...:56.123456Z"); zero = empty, null */
	PB_RAW,	      /* runtime.RawExtension, apiextensions JSON {1 raw}: the
		       * raw bytes are JSON text, embedded as is; absent = null */
	PB_DOUBLE,    /* double (wire type 1, little-endian): a JSON number */
	PB_MAP_MSG,   /* map<string, message msg> */
	PB_MAP_TIME,  /* map<string, meta/v1 Time> */
};

/* How a message's JSON differs from an object of its fields (pb_msg.form).
 * The apiextensions forms are "either" types: one of their fields is set,
 * and the JSON is that field's value alone. */
enum pb_form {
	PB_FORM_OBJECT,	  /* a JSON object of the fields (every ordinary one) */
	PB_FORM_LIST,	  /* {1 items repeated string} is a bare JSON array (a
			   * named Go slice as a map value: ExtraValue) */
	PB_FORM_OR_ARRAY, /* JSONSchemaPropsOrArray {1 schema, 2 jSONSchemas
			   * repeated}: the schema object, or an array */
	PB_FORM_OR_BOOL,  /* JSONSchemaPropsOrBool {1 allows, 2 schema}: the
			   * schema object, or true/false when none */
	PB_FORM_OR_STRS,  /* JSONSchemaPropsOrStringArray {1 schema, 2
			   * property repeated string}: object or array */
};

#define PB_REP 1u /* repeated: a JSON array */
#define PB_PTR 2u /* a Go pointer: kept even when zero */
/* In the JSON even when zero or absent from the wire: a Go field without
 * omitempty, or a non-pointer struct (Time, Quantity, IntOrString and
 * messages included: omitempty never drops a struct). Absent, it reads
 * as its zero: "", 0, false, {} for a message (with its own PB_KEEP
 * members), "0" for a Quantity, null for a Time, a RawExtension, a
 * pointer, a slice or a map. */
#define PB_KEEP 4u

struct pb_msg;

struct pb_field {
	unsigned num;
	const char *json;
	unsigned char kind, flags;
	const struct pb_msg *msg; /* PB_MSG, PB_INLINE, PB_MAP_MSG */
};

struct pb_msg {
	const char *name;	  /* the Go type, for messages and errors */
	const struct pb_field *f; /* ends with num 0 */
	unsigned char form;	  /* enum pb_form */
};

/* Table-writing helpers for the pb_schema_*.c files. */
#define PB_F(n, j, k, fl)         \
	{                         \
		n, j, k, fl, NULL \
	}
#define PB_M(n, j, m, fl)            \
	{                            \
		n, j, PB_MSG, fl, &m \
	}
#define PB_MX(n, j, k, m, fl)   \
	{                       \
		n, j, k, fl, &m \
	}
#define PB_I(n, m)                      \
	{                               \
		n, "", PB_INLINE, 0, &m \
	}
#define PB_MSG(var, nm, ...)                                             \
	static const struct pb_field var##_f[] = { __VA_ARGS__, { 0 } }; \
	const struct pb_msg var = { nm, var##_f, PB_FORM_OBJECT }
/* A message of another JSON form (enum pb_form). */
#define PB_MSG_FORM(var, nm, form, ...)                                  \
	static const struct pb_field var##_f[] = { __VA_ARGS__, { 0 } }; \
	const struct pb_msg var = { nm, var##_f, form }
/* A message without fields (its JSON is {}). */
#define PB_MSG_EMPTY(var, nm)                               \
	static const struct pb_field var##_f[] = { { 0 } }; \
	const struct pb_msg var = { nm, var##_f, PB_FORM_OBJECT }

#endif
