// h2front: an HTTP/2 (TLS, ALPN h2) front for the fake apiserver, which
// speaks HTTP/1.1 only, so that tests see what a client of a real
// apiserver sees on HTTP/2.
//
// Each stream is forwarded to the fake over HTTP/1.1 and its answer sent
// back as it comes. An answer the fake ends with "Connection: close" (an
// unauthenticated request's 401) ends the HTTP/2 connection as Go's
// HTTP/2 server does for that header: GOAWAY, the streams already under
// way finish, the connection is closed soon after (at most a second),
// and any stream the client opened after the GOAWAY was sent is refused.
// Every client multiplexing requests on that connection sees it.
//
// Usage: node h2front.mjs UPSTREAM_URL CERT KEY
// Prints "listening on https://127.0.0.1:PORT" once ready (harness.Server),
// and a line "goaway" for each connection it ends.
import fs from "node:fs";
import http from "node:http";
import http2 from "node:http2";

const [upstream, certFile, keyFile] = process.argv.slice(2);
const up = new URL(upstream);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const hop = new Set(["connection", "keep-alive", "transfer-encoding", "te",
	"trailer", "upgrade", "proxy-connection", "host"]);

const server = http2.createSecureServer({
	cert: fs.readFileSync(certFile),
	key: fs.readFileSync(keyFile),
	allowHTTP1: false,
});

function goaway(session) {
	if (session.closed || session.destroyed)
		return;
	process.stdout.write("goaway\n");
	session.close(); // GOAWAY with the last stream taken; in-flight finish
	setTimeout(() => session.destroy(), 1000).unref();
}

// Faults for tests of a client's retries: a request whose query has
// h2frontReset=N&h2frontId=ID is reset (RST_STREAM INTERNAL_ERROR, before
// any answer) the first N times a request with that ID comes; the two
// parameters are taken out before it is forwarded. Each attempt is
// logged as a line "attempt ID".
const resets = new Map();

function takeFault(headers) {
	const u = new URL(headers[":path"], "https://x");
	const n = Number(u.searchParams.get("h2frontReset") || 0);
	const id = u.searchParams.get("h2frontId");
	if (!id)
		return false;
	u.searchParams.delete("h2frontReset");
	u.searchParams.delete("h2frontId");
	headers[":path"] = u.pathname + u.search;
	process.stdout.write("attempt " + id + "\n");
	const seen = resets.get(id) || 0;
	resets.set(id, seen + 1);
	return seen < n;
}

server.on("stream", (stream, headers) => {
	stream.on("error", () => {});
	if (takeFault(headers)) {
		stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
		return;
	}
	const h = {};
	for (const [k, v] of Object.entries(headers))
		if (!k.startsWith(":") && !hop.has(k))
			h[k] = v;
	if (headers[":authority"])
		h.host = headers[":authority"];
	const req = http.request({
		host: up.hostname, port: up.port, agent,
		method: headers[":method"], path: headers[":path"], headers: h,
	}, (res) => {
		const out = { ":status": res.statusCode };
		for (const [k, v] of Object.entries(res.headers))
			if (!hop.has(k))
				out[k] = v;
		const close = (res.headers.connection || "").toLowerCase() === "close";
		if (stream.destroyed) {
			res.resume();
			return;
		}
		stream.respond(out);
		res.pipe(stream);
		if (close)
			goaway(stream.session);
	});
	req.on("error", () => {
		if (!stream.destroyed)
			stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
	});
	stream.on("error", () => req.destroy());
	stream.pipe(req);
});
server.on("sessionError", () => {});
server.listen(0, "127.0.0.1", () => {
	process.stdout.write("listening on https://127.0.0.1:" +
		server.address().port + "\n");
});
process.on("SIGTERM", () => process.exit(0));
