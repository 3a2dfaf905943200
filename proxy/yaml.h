/*
 * yaml: JSON answers rewritten as the YAML the apiserver writes for
 * Accept: application/yaml.
 *
 * The apiserver marshals an object to JSON and turns that JSON into YAML
 * with go-yaml v2 (through sigs.k8s.io/yaml): the JSON is read into a
 * generic tree, so member order is lost and keys come out in go-yaml's
 * "natural" order (letters by code point, runs of digits by value); the
 * tree is then written in block style with two-space indentation,
 * sequences under a key not indented, {} and [] for empty containers,
 * lines folded at 80 columns. A string is written plain unless plain
 * text would read back as something else (true, null, 12, 1e3, a
 * timestamp, 1:20, "" ...), then double-quoted; a string holding a line
 * break is a literal block; the emitter downgrades a style the text
 * cannot take (leading indicator, trailing space...) as libyaml does,
 * go-yaml's emitter being a port of it. Integers are written in decimal,
 * other numbers as Go's strconv.FormatFloat(f, 'g', -1, 64).
 *
 * Known differences, none of which the apiserver's own JSON produces:
 * non-ASCII digits and letters in keys sort as libc's C.UTF-8 locale
 * classifies them, and a duplicate key keeps its last value.
 *
 * Pure: no connection, any thread; each renderer one thread at a time.
 */
#ifndef PROXY_YAML_H
#define PROXY_YAML_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/obj.h"
#include "config/buf.h"

/* The YAML of the JSON document js[0..len), appended to out. Returns 0,
 * -EINVAL when js is not one JSON value, or -ENOMEM. */
int proxy_yaml_from_json(struct buf *out, const char *js, size_t len);

/*
 * A LIST's whole YAML body, made a part at a time: the same bytes as
 * proxy_yaml_from_json() of {"apiVersion":..,"items":[..],"kind":..,
 * "metadata":meta}. Each item is "{" + json + item_off of the object (as
 * the JSON LIST carries it). api_version, kind and meta are copied; the
 * items stay the caller's and must outlive the renderer. NULL when out
 * of memory or meta is not JSON.
 */
struct proxy_yaml_list;
struct proxy_yaml_list *proxy_yaml_list_new(const char *api_version,
					    const char *kind, const char *meta,
					    struct cache_obj *const *items,
					    size_t n);
/* Append the next part to b: whole items until about want bytes were
 * added, the end after the last. Returns true, or false once all was
 * given (or an item could not be written: the body then ends short). */
bool proxy_yaml_list_next(struct proxy_yaml_list *l, struct buf *b,
			  size_t want);
void proxy_yaml_list_free(struct proxy_yaml_list *l);

/* ---- the rules, exposed for tests ---- */

/* Whether go-yaml would quote s (len bytes) to keep it a string: it
 * resolves to null, a bool, a number or a timestamp, or looks like a
 * base-60 float. */
bool proxy_yaml_needs_quotes(const char *s, size_t len);
/* A JSON number's text as go-yaml writes it back, appended to out. */
void proxy_yaml_number(struct buf *out, const char *num, size_t len);

#endif
