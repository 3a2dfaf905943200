/*
 * test_gzip_zlib: test_gzip's checks on proxy/gzip.c built on zlib,
 * as the arm64 image has it instead of ISA-L.
 */
#define TEST_NAME "gzip_zlib"
#include "test_gzip.c"
