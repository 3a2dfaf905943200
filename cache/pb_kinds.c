/*
 * pb_kinds: the registry of top-level kinds of the protobuf schema (see
 * pb_kinds.h). Each API group's messages live in a pb_schema_GROUP.c.
 */
#include "cache/pb_kinds.h"

#include <string.h>

#include "cache/pb_schema_core.h"

static const struct pb_kind_row kinds[] = {
	{ "v1", "Namespace", &pb_namespace },
	{ "v1", "Pod", &pb_pod },
	{ "v1", "ConfigMap", &pb_configmap },
	{ "v1", "Service", &pb_service },
};

const struct pb_msg *pb_kinds_find(const char *api_version, const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, kind) == 0 &&
		    strcmp(kinds[i].api_version, api_version) == 0)
			return kinds[i].msg;
	return NULL;
}

const struct pb_kind_row *pb_kinds_all(size_t *n)
{
	*n = sizeof(kinds) / sizeof(kinds[0]);
	return kinds;
}
