/*
 * names: the longest names the apiserver takes, for the tests of the
 * buffers that must hold them whole.
 *
 * A group is a DNS subdomain (253 bytes), a version, a namespace or a
 * plural a DNS label (63). Each helper fills the buffer it is given, of
 * the size its parameter names, and returns it.
 */
#ifndef TESTS_NAMES_H
#define TESTS_NAMES_H

#include <stddef.h>
#include <string.h>

/* A 253-byte group: labels of 63 bytes joined by dots. */
static inline char *names_group(char out[254])
{
	memset(out, 'g', 253);
	for (size_t i = 63; i < 253; i += 64)
		out[i] = '.';
	out[253] = '\0';
	return out;
}

/* A 63-byte DNS label: first, then fill ('v', '1': a version). */
static inline char *names_label(char out[64], char first, char fill)
{
	memset(out, fill, 63);
	out[0] = first;
	out[63] = '\0';
	return out;
}

#endif
