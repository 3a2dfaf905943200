/*
 * pages: the bits of upstream LIST pages that the lister's and the
 * pager's unit tests script their stub upstream with.
 */
#ifndef TESTS_PAGES_H
#define TESTS_PAGES_H

/* a 200 answer's head, the connection closed after the body */
#define HDR                                                     \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Connection: close\r\n\r\n"
/* the least pod the cache takes */
#define POD(name)                                                    \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ns\"," \
	"\"resourceVersion\":\"3\"}}"

#endif
