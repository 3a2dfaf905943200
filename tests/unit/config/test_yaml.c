/*
 * test_yaml: config_yaml_load, the one place a YAML text becomes a
 * libyaml document: what a valid text gives, the 1-based line and
 * column and libyaml's words for a syntax error, that only the first
 * document of a stream is read, and that len (not a NUL) ends the text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/yaml.h"
#include "check.h"

/* The scalar at key in the root mapping of doc, or NULL. */
static const char *map_get(yaml_document_t *doc, const char *key)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);
	if (!root || root->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		if (k && v && k->type == YAML_SCALAR_NODE &&
		    v->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)k->data.scalar.value, key))
			return (const char *)v->data.scalar.value;
	}
	return NULL;
}

static void test_mapping(void)
{
	const char *t = "a: 1\nb: two\n";
	yaml_document_t doc;
	struct config_yaml_error why = { 0 };
	CHECK(config_yaml_load(&doc, t, strlen(t), &why) == 0);
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	CHECK(root && root->type == YAML_MAPPING_NODE);
	CHECK_STR(map_get(&doc, "a"), "1");
	CHECK_STR(map_get(&doc, "b"), "two");
	CHECK(!map_get(&doc, "c"));
	yaml_document_delete(&doc);
}

static void test_sequence(void)
{
	const char *t = "- x\n- y\n- z\n";
	yaml_document_t doc;
	struct config_yaml_error why = { 0 };
	CHECK(config_yaml_load(&doc, t, strlen(t), &why) == 0);
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	CHECK(root && root->type == YAML_SEQUENCE_NODE);
	if (root && root->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *i = root->data.sequence.items.start;
		CHECK(root->data.sequence.items.top - i == 3);
		yaml_node_t *last = yaml_document_get_node(&doc, i[2]);
		CHECK(last && last->type == YAML_SCALAR_NODE &&
		      !strcmp((const char *)last->data.scalar.value, "z"));
	}
	yaml_document_delete(&doc);
}

/* libyaml loads an empty stream as success with an empty document: no
 * root node. Callers (kubeconfig.c, file.c) must check the root, not
 * the return code, to tell "nothing" from a mapping. */
static void test_empty(void)
{
	yaml_document_t doc;
	struct config_yaml_error why = { 0 };
	CHECK(config_yaml_load(&doc, "", 0, &why) == 0);
	CHECK(yaml_document_get_root_node(&doc) == NULL);
	yaml_document_delete(&doc);

	/* comments and blank lines only: the same */
	const char *t = "# nothing\n\n";
	CHECK(config_yaml_load(&doc, t, strlen(t), &why) == 0);
	CHECK(yaml_document_get_root_node(&doc) == NULL);
	yaml_document_delete(&doc);
}

/* text must fail with -EINVAL at line:column with problem. */
static void bad(const char *text, size_t line, size_t column,
		const char *problem)
{
	yaml_document_t doc;
	struct config_yaml_error why = { 0 };
	CHECK(config_yaml_load(&doc, text, strlen(text), &why) == -EINVAL);
	if (why.line != line || why.column != column)
		fprintf(stderr, "%s: at %zu:%zu\n", text, why.line, why.column);
	CHECK(why.line == line);
	CHECK(why.column == column);
	CHECK_STR(why.problem, problem);
}

static void test_syntax_errors(void)
{
	/* a tab where indentation is expected */
	bad("a:\n\tb: 1\n", 2, 1,
	    "found character that cannot start any token");
	bad("a: 1\n\tb: 2\n", 2, 1,
	    "found a tab character that violates indentation");
	/* a quote never closed: found at the end of the stream */
	bad("a: \"open\nb: 1\n", 3, 1, "found unexpected end of stream");
	/* bad indentation at line 3: one space, neither 0 nor 2 */
	bad("a:\n  b: 1\n c: 2\n", 3, 2, "did not find expected key");
	/* a flow sequence never closed */
	bad("key: [1, 2\n", 2, 1, "did not find expected ',' or ']'");
}

/* A stream of several documents: the first is loaded and the rest not
 * even parsed, so a syntax error in the second goes unseen. */
static void test_first_document(void)
{
	const char *t = "a: 1\n---\nb: [\n";
	yaml_document_t doc;
	struct config_yaml_error why = { 0 };
	CHECK(config_yaml_load(&doc, t, strlen(t), &why) == 0);
	CHECK_STR(map_get(&doc, "a"), "1");
	CHECK(!map_get(&doc, "b"));
	yaml_document_delete(&doc);

	t = "---\nx: first\n...\n---\nx: second\n";
	CHECK(config_yaml_load(&doc, t, strlen(t), &why) == 0);
	CHECK_STR(map_get(&doc, "x"), "first");
	yaml_document_delete(&doc);
}

/* len ends the text: bytes after it, here not even NUL-terminated, are
 * never read. */
static void test_length_bounded(void)
{
	const char *valid = "a: 1\n";
	size_t n = strlen(valid);
	char *buf = malloc(n + 16);
	CHECK(buf != NULL);
	if (!buf)
		return;
	memcpy(buf, valid, n);
	memset(buf + n, '[', 16); /* garbage, and no NUL anywhere */
	yaml_document_t doc;
	struct config_yaml_error why = { 0 };
	CHECK(config_yaml_load(&doc, buf, n, &why) == 0);
	CHECK_STR(map_get(&doc, "a"), "1");
	yaml_document_delete(&doc);

	/* the same buffer with the garbage counted is an error */
	CHECK(config_yaml_load(&doc, buf, n + 16, &why) == -EINVAL);

	/* cut inside a token: "a: 1\nb: [oops" to its first 5 bytes */
	const char *t = "a: 1\nb: [oops";
	CHECK(config_yaml_load(&doc, t, 5, &why) == 0);
	CHECK_STR(map_get(&doc, "a"), "1");
	CHECK(!map_get(&doc, "b"));
	yaml_document_delete(&doc);
	free(buf);
}

/*
 * Allocation failure: not tested. libyaml allocates with its own
 * yaml_malloc (plain malloc), not through config/alloc.h, so
 * alloc_fail_after() cannot reach it, and config_yaml_load itself
 * allocates nothing. The -ENOMEM paths (yaml_parser_initialize failing,
 * YAML_MEMORY_ERROR) are left unexercised rather than faked.
 */

int main(void)
{
	test_mapping();
	test_sequence();
	test_empty();
	test_syntax_errors();
	test_first_document();
	test_length_bounded();
	return check_done("test_yaml");
}
