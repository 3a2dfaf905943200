/*
 * fake_crd: CustomResourceDefinition objects for the --crd resources,
 * their additionalPrinterColumns (--crd-column), and the Table columns
 * and cells the apiextensions apiserver prints for custom resources.
 *
 * With --crd-column (or --all-kinds) the fake serves
 * customresourcedefinitions.apiextensions.k8s.io/v1 and stores one CRD
 * per --crd at start. The printer columns are kept here, as given on the
 * command line; the Table of a custom resource is computed from them,
 * not from the stored CRD object.
 */
#ifndef FAKE_CRD_H
#define FAKE_CRD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config/buf.h"

/* Serve customresourcedefinitions. Before serving. 0 or -ENOSPC. */
int fake_crd_enable(void);
/* The index of the customresourcedefinitions resource, or -1. */
int fake_crd_res(void);
/*
 * --crd-column "plural.group=Name:type:jsonPath[:priority]": add a
 * printer column to a --crd given before. 0, or -EINVAL with err set.
 */
int fake_crd_add_column(const char *spec, char *err, size_t errlen);
/* The CRD object of custom resource res (compact JSON) into out. */
int fake_crd_object(struct buf *out, int res, uint64_t rv);
/* The Table columnDefinitions of custom resource res (static JSON). */
const char *fake_crd_table_columns(int res);
/* A new array of the cells of custom resource object o. */
json_t *fake_crd_cells(int res, json_t *o, time_t now);

#endif
