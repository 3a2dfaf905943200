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

#endif
