/*
 * table_int: what table.c exposes to its tests only.
 */
#ifndef PROXY_TABLE_INT_H
#define PROXY_TABLE_INT_H

#include "proxy/table/table.h"

/* proxy_table_format_negotiate() from the header values (NULL when
 * absent), without a connection. */
int proxy_table_format_parse(const char *accept, const char *include_object,
			     struct proxy_table_format *f);

#endif
