/*
 * json_int: what the tokenizer (json.c) and the lookups on its tokens
 * (json_read.c) share; for those two files and their tests only.
 */
#ifndef CACHE_JSON_INT_H
#define CACHE_JSON_INT_H

#include <stddef.h>

#include "cache/json.h"

/* The value's first and one-past-last byte, quotes included. */
static inline size_t json_tok_begin(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? (size_t)t->start - 1 : (size_t)t->start;
}

static inline size_t json_tok_end(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? (size_t)t->end + 1 : (size_t)t->end;
}

/*
 * The tokenizer's stage one (json.c) at each instruction set it has:
 * BYTES is the byte-by-byte loop with no index, PORTABLE the index
 * classified in plain C, SSE2 and AVX2 with those instructions
 * (json_isa_best(): what the CPU has, asked once). Parses use
 * JSON_ISA_DEFAULT unless the environment variable JSON_ISA_ENV names
 * another level (read once) or json_isa_force() does: from then on
 * every parse uses isa, or the best level when isa is past it; -1 goes
 * back to the default. It returns the previous setting. For tests and
 * benchmarks: a parse in flight on another thread may see either.
 *
 * The default is the byte loop: on Kubernetes objects (a structural
 * character every three bytes, short strings) it measured faster than
 * the index (docs/JSON.md, "Stage one").
 */
enum {
	JSON_ISA_BYTES,
	JSON_ISA_PORTABLE,
	JSON_ISA_SSE2,
	JSON_ISA_AVX2
};
#define JSON_ISA_DEFAULT JSON_ISA_BYTES
#define JSON_ISA_ENV "INFORMER_PROXY_JSON_ISA"
int json_isa_force(int isa);
/* The level parses use now. */
int json_isa(void);
int json_isa_best(void);

#endif
