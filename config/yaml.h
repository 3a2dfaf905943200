/*
 * yaml: a text parsed into one libyaml document, for the YAML files the
 * proxy reads (kubeconfig.c, file.c), so that each reads a document and
 * reports a syntax error the same way.
 */
#ifndef CONFIG_YAML_H
#define CONFIG_YAML_H

#include <stddef.h>
#include <yaml.h>

/* Where and why a text is not YAML. */
struct config_yaml_error {
	size_t line, column; /* 1-based */
	const char *problem; /* libyaml's words (static), or "syntax error" */
};

/* Parse len bytes of text (its first document) into *doc. 0, with *doc
 * the caller's to free with yaml_document_delete(); -ENOMEM; or -EINVAL
 * with *why filled. On failure there is nothing to free. */
int config_yaml_load(yaml_document_t *doc, const char *text, size_t len,
		     struct config_yaml_error *why);

#endif
