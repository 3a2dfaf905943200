/*
 * json: a validating tokenizer over JSON bytes, and lookups on its tokens.
 *
 * The cache never builds a tree of values. It tokenizes a document once
 * (into jsmn's token layout, chosen by bench/json; see docs/JSON.md, with
 * a tokenizer of its own that validates in the same pass), and then reads the few fields it needs straight from
 * the token spans. Objects keep their original bytes: a token's
 * [start, end) slice of the input is the value's exact text.
 *
 * A struct json_doc borrows the input bytes and owns its token array.
 */
#ifndef CACHE_JSON_H
#define CACHE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config/buf.h"

#define JSMN_HEADER
#define JSMN_PARENT_LINKS
#define JSMN_STRICT
#include <jsmn.h>
#undef JSMN_HEADER

/* A run of containers past LIMIT_JSON_DEPTH: the byte where its first
 * one opened, and the deepest level reached inside it. */
struct json_deep {
	int at, max;
};

struct json_doc {
	const char *js; /* borrowed input */
	size_t len;
	jsmntok_t *tok; /* owned */
	int *next;	/* owned; next[i]: the index just past value i */
	int ntok;
	int cap;      /* of tok */
	int next_cap; /* of next */
	char *own;    /* owned; js points here when the input's
				 * invalid UTF-8 had to be replaced */
	size_t own_cap;
	/* owned; each container opened deeper than LIMIT_JSON_DEPTH in
	 * the document while none such was open (json_too_deep()) */
	struct json_deep *deep;
	int ndeep, deep_cap;
	/* false when the last parse saw no newline byte in the value (so
	 * none between its members: a string holds none unescaped);
	 * newlines around the value do not count */
	bool newline;
	/* true when the last parse proved that no string it gave a token
	 * holds a backslash (json_escaped()) */
	bool plain;
};

#define JSON_DOC_INIT                                                     \
	{                                                                 \
		NULL, 0, NULL, NULL, 0, 0, 0, NULL, 0, NULL, 0, 0, false, \
			false                                             \
	}

/*
 * Nesting is the apiserver's limit, LIMIT_JSON_DEPTH, for each object,
 * not for the document that carries it: a LIST page holds its items two
 * levels down and a watch event its object one level down, so an object
 * the apiserver stored may nest deeper in them than the limit. The
 * tokenizer takes documents nested up to JSON_DOC_MAX_DEPTH (past it the
 * whole document is refused), and json_too_deep() says whether one value
 * nests deeper than LIMIT_JSON_DEPTH counted from itself.
 */
#define JSON_DOC_MAX_DEPTH 20000

/*
 * Tokenize and validate js[0..len). The whole input must be exactly one
 * JSON value, optionally surrounded by white space, nested at most
 * JSON_DOC_MAX_DEPTH deep. Returns 0, -EINVAL for
 * malformed input (err says where), or -ENOMEM. Time is linear in len
 * and stack use constant, whatever the input. The token array is reused
 * across calls on the same doc.
 *
 * Invalid UTF-8 in strings is replaced by U+FFFD as the apiserver's
 * decoder does: d->js then points to a corrected copy that d owns (valid
 * until the next parse on d), so callers read d->js, never js.
 */
int json_parse(struct json_doc *d, const char *js, size_t len, char *err,
	       size_t errlen);

/*
 * A shape says which values of a document get tokens. The cache reads a
 * handful of fields of each object (metadata, and the kind's selectable
 * fields such as spec.nodeName); the rest of the object (the bulk of
 * spec, status and metadata.managedFields) is kept as bytes and never
 * looked into, so tokenizing it is wasted work.
 *
 * A container whose shape is &json_shape_skip is still validated byte
 * for byte, exactly as json_parse() would, but gets one token: its type
 * and exact span, with size 0, so that lookups see it as empty. NULL
 * tokenizes the value and everything below it. Otherwise the value gets
 * its token and its children take the shape of the key that names them
 * (compared with the key's raw text), else rest; an array's elements all
 * take rest. Strings and primitives always get their token.
 *
 * Shapes are read-only and may be shared by threads. Below
 * JSON_SHAPE_MAX_DEPTH shaped levels everything is tokenized.
 */
#define JSON_SHAPE_MAX_DEPTH 16

struct json_shape_key {
	const char *name; /* raw member name, not NUL-terminated */
	size_t len;
	const struct json_shape *shape;
};

struct json_shape {
	const struct json_shape *rest; /* unnamed members, array elements */
	size_t nkeys;
	const struct json_shape_key *keys;
};

extern const struct json_shape json_shape_skip;

/* json_parse(), tokenizing only what shape asks for; shape NULL is
 * json_parse() itself. The same input is accepted or refused, with the
 * same message, whatever the shape. */
int json_parse_shaped(struct json_doc *d, const char *js, size_t len,
		      const struct json_shape *shape, char *err, size_t errlen);
/*
 * json_parse_shaped() of bytes that json_parse() (any shape) accepted
 * before, such as a cached object's: the containers shaped
 * &json_shape_skip are jumped over by the structural index, their
 * brackets counted and nothing in them checked, which makes a skip a
 * fraction of its validation. The tokens are the same as
 * json_parse_shaped()'s. Bytes never accepted must not come here: what
 * they give is undefined, though always within js[0..len).
 */
int json_parse_trusted(struct json_doc *d, const char *js, size_t len,
		       const struct json_shape *shape);
void json_doc_free(struct json_doc *d);

static inline int json_type(const struct json_doc *d, int i)
{
	return d->tok[i].type;
}

/* The index just past the value at i (its last descendant + 1): O(1),
 * recorded by the validation pass. */
static inline int json_skip(const struct json_doc *d, int i)
{
	return d->next[i];
}
/* True when the value at token i (an object or array) holds containers
 * more than LIMIT_JSON_DEPTH levels below and including itself: more
 * than the apiserver's decoder takes in one document. O(log of the
 * document's too-deep runs), nothing per byte. */
bool json_too_deep(const struct json_doc *d, int i);
/* Value of member key in object obj, or -1. */
int json_get(const struct json_doc *d, int obj, const char *key);
/* Follow a dotted path of member names ("metadata.name"), or -1. */
int json_path(const struct json_doc *d, int obj, const char *path);
/* The same, each name looked up by step(); a negative step ends the walk
 * and is returned (a name over 127 bytes: -1). */
int json_path_by(const struct json_doc *d, int obj, const char *path,
		 int (*step)(const struct json_doc *d, int obj,
			     const char *name));
/* True when token i is a string whose raw text equals s (no escapes);
 * false for a lookup's -1. */
bool json_str_eq(const struct json_doc *d, int i, const char *s);
/* The value's exact text: for strings without the quotes. */
static inline const char *json_raw(const struct json_doc *d, int i, size_t *n)
{
	*n = (size_t)(d->tok[i].end - d->tok[i].start);
	return d->js + d->tok[i].start;
}
/* True when string token i's raw text holds a backslash (an escape).
 * Reads nothing when the parse found none in any token's string. */
static inline bool json_escaped(const struct json_doc *d, int i)
{
	size_t n;
	const char *raw;
	if (d->plain)
		return false;
	raw = json_raw(d, i, &n);
	return memchr(raw, '\\', n) != NULL;
}
/* For strings, the span including the quotes. */
void json_span(const struct json_doc *d, int i, size_t *start, size_t *end);

/*
 * Unescape string token i into out (NUL-terminated, at most cap bytes
 * including the NUL). Returns the length, or -EINVAL if i is not a
 * string (a lookup's -1 included: json_str(d, json_get(d, o, "k"), ...)
 * is safe), or -ENOSPC if it does not fit. json_u64() and json_i64()
 * take a lookup's -1 the same way.
 */
int json_str(const struct json_doc *d, int i, char *out, size_t cap);
/* The unescaped length of string token i (for sizing); 0 for a
 * lookup's -1. */
size_t json_str_len(const struct json_doc *d, int i);
/* Parse a resourceVersion: a string of decimal digits (or a bare
 * number). Returns 0 or -EINVAL. */
int json_u64(const struct json_doc *d, int i, uint64_t *out);
/* A bare integer primitive. */
int json_i64(const struct json_doc *d, int i, int64_t *out);

/* Iterate the members of object obj: for (k = json_first(d, obj); k > 0;
 * k = json_next(d, obj, k)); the value of key k is at k + 1. Also works on
 * arrays, where each k is an element. */
int json_first(const struct json_doc *d, int obj);
int json_next(const struct json_doc *d, int obj, int k);


#endif
