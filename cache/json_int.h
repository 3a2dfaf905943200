/*
 * json_int: what the tokenizer (json.c), its stage one (json_index.c)
 * and the lookups on its tokens (json_read.c) share; for those files and
 * their tests only.
 */
#ifndef CACHE_JSON_INT_H
#define CACHE_JSON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* ---- stage one (json_index.c) for the state machine (json.c) ---- */

#define JSON_IX_CAP 1024 /* positions listed at a time */

/* The state machine's way through the input: from one listed position
 * to the next (stage one's index), or, at JSON_ISA_BYTES, over white
 * space byte by byte. */
struct json_cursor {
	const char *js;
	size_t len;
	int isa;
	size_t pos;	/* the next block to classify */
	uint64_t esc;	/* bit 0: the next block's first byte is escaped */
	uint64_t instr; /* all ones: the next block starts in a string */
	uint64_t other; /* bit 0: the last block ended in other bytes */
	size_t nl;	/* newlines seen */
	bool lost;	/* the index disagreed with scan_string() */
	bool trusted;	/* json_parse_trusted(): skips go by the index */
	size_t k, n;	/* the listed positions not yet passed */
	uint32_t ix[JSON_IX_CAP];
};

/* Start c on js[0, len) at the level json_isa() says. */
void json_cursor_init(struct json_cursor *c, const char *js, size_t len);
/* Classify the next blocks and list their positions in c->ix, as many
 * as fit (c->k = 0, c->n of them); c->pos moves past them. */
void json_cursor_fill(struct json_cursor *c);

/*
 * Where the container that opens at js[i] closes, in bytes json_parse()
 * accepted before (json_parse_trusted()): nothing checked, strings told
 * by their unescaped quotes. *nl is set when the container holds a
 * newline. Returns -1 when it does not close before len, -2 when it
 * nests more than room levels (the caller's validating skip then notes
 * them). At the best level the CPU has, or the one forced
 * (json_isa_force(), JSON_ISA_ENV) when lower: the default byte loop
 * has nothing to do with it.
 */
long json_skip_trusted(const char *js, size_t len, size_t i, int room,
		       bool *nl);

#endif
