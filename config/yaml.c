/*
 * yaml: a text into a libyaml document (see yaml.h).
 */
#include "config/yaml.h"

#include <errno.h>

int config_yaml_load(yaml_document_t *doc, const char *text, size_t len,
		     struct config_yaml_error *why)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int rc = 0;
	if (!yaml_parser_load(&parser, doc)) {
		rc = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
		why->line = parser.problem_mark.line + 1;
		why->column = parser.problem_mark.column + 1;
		why->problem = parser.problem ? parser.problem : "syntax error";
	}
	yaml_parser_delete(&parser);
	return rc;
}
