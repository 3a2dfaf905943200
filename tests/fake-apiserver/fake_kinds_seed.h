/*
 * fake_kinds_seed: --seed's objects for the kinds --all-kinds serves and
 * for services, events and leases, made to exercise every cell the
 * apiserver's printers compute (fake_table_kinds.c). Seeded objects have
 * fixed creation times in the past, so what kubectl prints for them does
 * not change from one second to the next. Main's thread, before serving.
 */
#ifndef FAKE_KINDS_SEED_H
#define FAKE_KINDS_SEED_H

#include <stdint.h>

#include "config/buf.h"

/* Seed object idx of resource res into out (compact JSON): 0, -ENOENT
 * when --all-kinds is off or no module seeds res, or -ENOMEM. */
int fake_kinds_seed(struct buf *out, int res, unsigned idx, const char *ns,
		    uint64_t rv);

#endif
