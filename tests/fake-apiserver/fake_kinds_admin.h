/*
 * fake_kinds_admin: the kinds --all-kinds serves besides fake_kinds.c's,
 * those of quota, admission, certificates, flow control, runtime classes
 * and CSI storage (pod templates, controller revisions, limit ranges,
 * resource quotas, CSRs, validating and mutating webhook configurations,
 * runtime classes, CSI drivers, volume attachments, flow schemas and
 * priority level configurations): their resources, --seed's objects for
 * them, and their Table printers (written from kubernetes
 * pkg/printers/internalversion, independently of the proxy's).
 */
#ifndef FAKE_KINDS_ADMIN_H
#define FAKE_KINDS_ADMIN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config/buf.h"
#include "fake_res.h"

/* The resources, n of them (fake_kinds_enable appends them). */
const struct fake_res *fake_kinds_admin_res(size_t *n);
/* Seed object idx of resource res into out: 0, or -ENOENT when res is
 * not one of these. */
int fake_kinds_admin_seed(struct buf *out, int res, unsigned idx,
			  const char *ns, uint64_t rv);
/* The columnDefinitions JSON of res, or NULL when res is not one of
 * these. */
const char *fake_kinds_admin_columns(int res);
/* A new array of res's cells for o (the caller releases it), or NULL. */
json_t *fake_kinds_admin_cells(int res, json_t *o, time_t now);

#endif
