/*
 * test_pb_kinds: the protobuf schema's tables are well formed: every
 * message reachable from a registered kind has distinct field numbers
 * and distinct JSON members (an embedded struct's members count as its
 * parent's), every message row names its message, every List is
 * {1 metadata ListMeta, 2 items repeated} of its kind, and the registry
 * finds kinds by group and version.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cache/pb_kinds.h"
#include "cache/pb_schema_meta.h"
#include "tests/unit/check.h"

#define MAX_MSGS 2048

static const struct pb_msg *seen[MAX_MSGS];
static size_t nseen;

static bool visited(const struct pb_msg *m)
{
	for (size_t i = 0; i < nseen; i++)
		if (seen[i] == m)
			return true;
	if (nseen < MAX_MSGS)
		seen[nseen++] = m;
	return false;
}

static bool takes_msg(unsigned kind)
{
	return kind == PB_MSG || kind == PB_INLINE || kind == PB_MAP_MSG;
}

/* Collect m's JSON members (inline ones flattened) into names; false on
 * a repeat, named in stderr. */
static bool members(const struct pb_msg *top, const struct pb_msg *m,
		    const char **names, size_t *n, size_t cap)
{
	bool ok = true;
	for (const struct pb_field *f = m->f; f->num; f++) {
		if (f->kind == PB_INLINE) {
			if (f->msg)
				ok &= members(top, f->msg, names, n, cap);
			continue;
		}
		for (size_t i = 0; i < *n; i++)
			if (strcmp(names[i], f->json) == 0) {
				fprintf(stderr, "%s: member %s twice\n",
					top->name, f->json);
				ok = false;
			}
		if (*n < cap)
			names[(*n)++] = f->json;
	}
	return ok;
}

/* Check m and every message below it. */
static void check_msg(const struct pb_msg *m)
{
	const char *names[128];
	size_t n = 0, nf = 0;

	if (!m || visited(m))
		return;
	CHECK(m->name && *m->name);
	for (const struct pb_field *f = m->f; f->num; f++, nf++) {
		for (const struct pb_field *g = m->f; g != f; g++)
			if (g->num == f->num) {
				fprintf(stderr, "%s: field %u twice\n", m->name,
					f->num);
				CHECK(g->num != f->num);
			}
		CHECK(f->num < 536870912u);
		CHECK(f->kind <= PB_MAP_TIME);
		if (takes_msg(f->kind) != (f->msg != NULL))
			fprintf(stderr, "%s.%s: message %s\n", m->name, f->json,
				f->msg ? "where none belongs" : "missing");
		CHECK(takes_msg(f->kind) == (f->msg != NULL));
		if (f->kind == PB_INLINE) {
			CHECK(*f->json == '\0' && f->flags == 0);
		} else {
			CHECK(f->json && *f->json);
		}
		if (f->flags & PB_TYPED)
			CHECK(f->kind == PB_MSG);
		check_msg(f->msg);
	}
	CHECK(members(m, m, names, &n, sizeof(names) / sizeof(names[0])));
	switch (m->form) {
	case PB_FORM_OBJECT:
		break;
	case PB_FORM_LIST:
		CHECK(nf == 1 && m->f[0].num == 1 && m->f[0].kind == PB_STR &&
		      (m->f[0].flags & PB_REP));
		break;
	case PB_FORM_OR_ARRAY:
	case PB_FORM_OR_BOOL:
	case PB_FORM_OR_STRS:
		CHECK(nf == 2);
		break;
	default:
		CHECK(!"unknown form");
	}
}

static void test_tables(void)
{
	size_t n;
	const struct pb_kind_row *k = pb_kinds_all(&n);

	CHECK(n >= 90);
	for (size_t i = 0; i < n; i++) {
		CHECK(k[i].msg != NULL);
		check_msg(k[i].msg);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(k[i].kind, k[j].kind) != 0 ||
			      strcmp(k[i].api_version, k[j].api_version) != 0);
	}
	CHECK(nseen > 300);
}

/* XList = {1 metadata ListMeta, 2 items repeated X}; X's metadata is
 * field 1, an ObjectMeta. */
static void test_lists(void)
{
	size_t n, lists = 0;
	const struct pb_kind_row *k = pb_kinds_all(&n);
	char want[96];

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(k[i].kind);
		if (len < 5 || strcmp(k[i].kind + len - 4, "List") != 0)
			continue;
		snprintf(want, sizeof(want), "%.*s", (int)(len - 4), k[i].kind);
		const struct pb_msg *item =
			pb_kinds_find(k[i].api_version, want);
		const struct pb_field *f = k[i].msg->f;
		CHECK(item != NULL);
		CHECK(f[0].num == 1 && strcmp(f[0].json, "metadata") == 0 &&
		      f[0].msg == &pb_list_meta);
		CHECK(f[1].num == 2 && strcmp(f[1].json, "items") == 0 &&
		      (f[1].flags & PB_REP) && f[1].msg == item);
		CHECK(f[2].num == 0);
		CHECK(item && item->f[0].num == 1 &&
		      item->f[0].msg == &pb_object_meta);
		lists++;
	}
	CHECK(lists >= 45);
}

static void test_find(void)
{
	CHECK(pb_kinds_find("apps/v1", "Deployment") != NULL);
	CHECK(pb_kinds_find("v1", "Deployment") == NULL);
	CHECK(pb_kinds_find("v1", "Event") !=
	      pb_kinds_find("events.k8s.io/v1", "Event"));
	CHECK(pb_kinds_find("v1", "Status") == &pb_status);
	CHECK(pb_kinds_find("apiextensions.k8s.io/v1",
			    "CustomResourceDefinition") != NULL);
	CHECK(pb_kinds_find("example.com/v1", "Widget") == NULL);
	CHECK(pb_kinds_find("", "") == NULL);
}

int main(void)
{
	test_tables();
	test_lists();
	test_find();
	return check_done("test_pb_kinds");
}
