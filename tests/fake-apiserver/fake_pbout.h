/*
 * fake_pbout: answers in Kubernetes protobuf, negotiated from Accept as
 * the apiserver does (docs/PROTOBUF.md).
 *
 * GET, LIST and WATCH of a kind the shared schema knows answer
 * application/vnd.kubernetes.protobuf when the Accept's best entry asks
 * for it: entries in q order (a q=0 entry still counts), ties in header
 * order, the any-type wildcard meaning JSON. as=PartialObjectMetadata(List) works in
 * protobuf; a Table never does; a custom resource has no protobuf form.
 * An Accept naming no type the apiserver produces (the
 * application wildcard, application/x-protobuf) is the router's 406; one whose every entry is
 * refused is the negotiator's 406. Status errors go in the encoding the
 * Accept negotiates for a Status.
 *
 * Bodies are built as JSON as before, then encoded by the proxy's own
 * encoder (cache/pb_encode.h), which the fixture tests pin to the real
 * apiserver's bytes.
 */
#ifndef FAKE_PBOUT_H
#define FAKE_PBOUT_H

#include <microhttpd.h>
#include <stdbool.h>

#include "config/buf.h"
#include "fake_http.h"
#include "fake_table.h"

#define FAKE_PB_STREAM FAKE_PB_MEDIA ";stream=watch"
#define FAKE_PB_MEDIA "application/vnd.kubernetes.protobuf"

enum fake_pb {
	FAKE_PB_JSON,  /* answer JSON (as says which form) */
	FAKE_PB_PROTO, /* answer protobuf (as: the object, or metadata) */
};

/*
 * Negotiate the encoding of a GET (list false), LIST or WATCH of resource
 * res, after fake_as_negotiate() filled *as, which is adjusted for
 * protobuf. false when the request is not acceptable: the 406 is queued
 * and *ret holds its result.
 */
bool fake_pb_negotiate(struct fake_req *rq, bool list, bool watch,
		       struct fake_as *as, enum fake_pb *pb,
		       enum MHD_Result *ret);

/* fake_reply(c, code, body), the JSON document in body encoded first
 * when pb says so (a 500 Status when it cannot be). Consumes body. */
enum MHD_Result fake_pb_reply(struct MHD_Connection *c, unsigned code,
			      struct buf *body, enum fake_pb pb);

/* For fake_reply: a Status body is re-encoded in protobuf when the
 * request's Accept negotiates protobuf for a Status. */
void fake_pb_status(struct MHD_Connection *c, struct buf *body);

/* The encoding of a discovery document (/api, /apis, /apis/G[/V],
 * /api/v1): protobuf when an entry asking for it (without as=) comes
 * before any JSON one, as the apiserver answers; JSON otherwise, also
 * when nothing in Accept fits (no 406 is known for these paths). */
enum fake_pb fake_pb_discovery(struct MHD_Connection *c);

/* For a path served only in JSON (/version): true when Accept (absent
 * included) takes JSON; else false, with the router's 406 queued (its
 * Status in protobuf for a protobuf Accept, as the apiserver answers a
 * protobuf-only GET /version) and *ret its result. */
bool fake_pb_json_only(struct MHD_Connection *c, enum MHD_Result *ret);

/* Whether body is protobuf (starts with the magic). */
bool fake_pb_is(const struct buf *body);

/* Turn the JSON watch lines {"type":T,"object":O}\n in out into protobuf
 * frames; a line that cannot be encoded becomes an ERROR frame with a
 * 500 Status. -ENOMEM. */
int fake_pb_frames(struct buf *out);

#endif
