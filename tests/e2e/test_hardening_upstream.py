"""A hostile upstream against the reflector: what the apiserver would
accept is cached however large or odd, up to its limits; past them a clear
error at bounded cost, the rest of the cache working, and local watchers
never get a wrong or backwards stream.

The upstream here is scripted in the test (an http.server answering LIST
and WATCH with crafted bytes): the fake apiserver never sends such bytes."""
import json
import re
import threading
import time
import unittest
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import harness as h

MAXU64 = 2 ** 64 - 1


def pod(name, rv, **extra):
    o = {"metadata": {"name": name, "namespace": "d", "resourceVersion": str(rv),
                      "uid": "u-" + name}, "spec": {}}
    o["metadata"].update(extra)
    return o


def page(rv, items, cont=None):
    meta = {"resourceVersion": str(rv)}
    if cont:
        meta["continue"] = cont
    # metadata first, as the apiserver writes it
    body = '{"kind":"PodList","apiVersion":"v1","metadata":%s,"items":[' % json.dumps(meta)
    return body.encode() + b",".join(i if isinstance(i, bytes) else json.dumps(i).encode()
                                     for i in items) + b"]}"


def ev(typ, obj):
    return (json.dumps({"type": typ, "object": obj}) + "\n").encode()


class Upstream:
    """on_list(query, n) -> bytes: the n-th LIST (0-based); on_watch(query,
    n) -> iterable of byte chunks, after which the stream stays open until
    close(). A limit=1 probe gets on_probe(), by default an empty list at
    the resourceVersion of the last LIST."""

    def __init__(self, on_list, on_watch, on_probe=None):
        self.on_list, self.on_watch, self.on_probe = on_list, on_watch, on_probe
        self.nlist = self.nwatch = 0
        m = re.search(rb'"resourceVersion": ?"([0-9]+)"', on_list({"limit": "500"}, 0))
        self.last_rv = int(m.group(1)) if m else 1
        self.queries = []
        self.stop = threading.Event()
        up = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                path, _, qs = self.path.partition("?")
                q = dict(urllib.parse.parse_qsl(qs))
                if not path.endswith("/pods"):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                probe = q.get("limit") == "1" and "continue" not in q
                if not probe:
                    up.queries.append(q)
                if q.get("watch") == "true":
                    n, up.nwatch = up.nwatch, up.nwatch + 1
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    try:
                        for data in up.on_watch(q, n):
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                            self.wfile.flush()
                        while not up.stop.wait(0.1):
                            pass
                        self.wfile.write(b"0\r\n\r\n")
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                if probe:
                    body = up.on_probe() if up.on_probe else page(up.last_rv, [])
                else:
                    n, up.nlist = up.nlist, up.nlist + 1
                    body = up.on_list(q, n)
                    m = re.search(rb'"resourceVersion": ?"([0-9]+)"', body)
                    up.last_rv = int(m.group(1)) if m else up.last_rv
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.srv.daemon_threads = True
        self.srv.handle_error = lambda *a: None     # peers that hang up are the point
        self.url = "http://127.0.0.1:%d" % self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.stop.set()
        self.srv.shutdown()
        self.srv.server_close()


def chunks(data, size=65536):
    for i in range(0, len(data), size):
        yield data[i:i + size]


class Base(unittest.TestCase):
    def start(self, up, *flags):
        self.addCleanup(up.close)
        proxy = h.proxy(up.url, "pods", "--backoff-max-ms", "500", *flags)
        self.addCleanup(proxy.stop)
        return proxy

    def metric(self, proxy, name, **labels):
        text = h.request("GET", proxy.url + "/metrics")[2].decode()
        want = ",".join('%s="%s"' % kv for kv in sorted(labels.items()))
        for line in text.splitlines():
            m = re.match(r'^%s\{([^}]*)\} (\S+)$' % re.escape(name), line)
            if m and ",".join(sorted(m.group(1).split(","))) == want:
                return float(m.group(2))
        return None

    def pods(self, proxy):
        return sorted((o["metadata"]["name"], o["metadata"]["resourceVersion"])
                      for o in h.get_json(proxy.url + "/api/v1/pods?resourceVersion=0")[1]["items"])

    def rss(self, proxy):
        return h.rss_bytes(proxy.proc.pid)


class WatchLines(Base):
    def test_a_long_event_is_linear(self):
        """A 60 MB event (under the 64 MiB default) arrives in 64 KB
        chunks. Scanning the whole carried-over line on every chunk took
        minutes of CPU for this; scanning new bytes only, well under one."""
        big = pod("a", 11, annotations={"x": "y" * (60 << 20)})
        up = Upstream(lambda q, n: page(10, [pod("a", 10)]),
                      lambda q, n: chunks(ev("MODIFIED", big)) if n == 0 else [])
        proxy = self.start(up)
        h.wait_ready(proxy.url)
        h.wait_until(lambda: self.metric(proxy, "informer_proxy_cache_resource_version",
                                         resource="pods") == 11,
                     timeout=60, interval=0.5, what="the 60 MB event to be applied")

    def test_an_event_past_the_cap_ends_the_watch(self):
        """--upstream-line-max-mib 1: a line that never ends is not
        buffered past the cap; the watch ends with a clear log line, the
        reflector relists, and the cache goes on."""
        def watch(q, n):
            if n:
                return []
            def endless():
                blob = b'{"type":"ADDED","object":{"metadata":{"name":"z","annotations":{"x":"' + b"y" * 65536
                yield blob
                for _ in range(2000):       # 128 MB if nobody stops reading
                    yield b"y" * 65536
            return endless()
        lists = [page(10, [pod("a", 10)]), page(12, [pod("a", 10), pod("b", 12)])]
        up = Upstream(lambda q, n: lists[min(n, 1)], watch)
        proxy = self.start(up, "--upstream-line-max-mib", "1")
        h.wait_ready(proxy.url)
        h.wait_until(lambda: self.pods(proxy) == [("a", "10"), ("b", "12")],
                     timeout=30, what="a relist after the overlong event")
        self.assertIn("event longer than 1048576 bytes", proxy.logs())
        self.assertEqual(self.metric(proxy, "informer_proxy_relists_total",
                                     resource="pods", reason="broken"), 1)
        self.assertLess(self.rss(proxy), 100 << 20)


class BadItems(Base):
    def test_bad_items_are_skipped_and_counted(self):
        """Names no apiserver stores (NUL, '/', no namespace) and a label
        that is not a string: each item skipped, counted by reason and
        logged with its key; the rest of the LIST is cached. Before, one
        bad item failed every LIST and the resource never synced."""
        items = [pod("a", 5), pod("x\u0000a", 6), pod("x\u0000b", 7), pod("a/b", 8),
                 {"metadata": {"name": "nons", "resourceVersion": "9"}},
                 pod("lab", 9, labels={"k": 1})]
        bad_add = pod("q\u0000", 11)
        up = Upstream(lambda q, n: page(10, items),
                      lambda q, n: [ev("ADDED", bad_add), ev("ADDED", pod("c", 12))] if n == 0 else [])
        proxy = self.start(up)
        h.wait_ready(proxy.url, timeout=15)
        h.wait_until(lambda: self.pods(proxy) == [("a", "5"), ("c", "12")],
                     timeout=15, what="the good objects, and the watch going on")
        self.assertEqual(self.metric(proxy, "informer_proxy_upstream_items_rejected_total",
                                     resource="pods", reason="name"), 5)
        self.assertEqual(self.metric(proxy, "informer_proxy_upstream_items_rejected_total",
                                     resource="pods", reason="invalid"), 1)
        self.assertEqual(up.nlist, 1, "a bad item must not cause a relist")
        logs = proxy.logs()
        self.assertIn("skipping object d/lab (invalid)", logs)
        self.assertIn("skipping object d/x\\u0000a (name)", logs)
        # the one named "x" is not there under a cut key
        s, _, _ = h.request("GET", proxy.url + "/api/v1/namespaces/d/pods/x")
        self.assertEqual(s, 404)

    def test_invalid_utf8_is_served_as_the_apiserver_would(self):
        """Go's decoder turns each invalid byte into U+FFFD; so does the
        proxy, and its clients never get invalid UTF-8."""
        item = json.dumps(pod("u", 5, labels={"k": "v@"})).encode().replace(b"v@", b"v\xff\xc0\x80")
        up = Upstream(lambda q, n: page(5, [item]), lambda q, n: [])
        proxy = self.start(up)
        h.wait_ready(proxy.url)
        s, _, body = h.request("GET", proxy.url + "/api/v1/namespaces/d/pods/u")
        self.assertEqual(s, 200)
        obj = json.loads(body.decode("utf-8"))     # strict: raises on invalid UTF-8
        self.assertEqual(obj["metadata"]["labels"]["k"], "v\ufffd\ufffd\ufffd")
        s, _, body = h.request("GET", proxy.url + "/api/v1/pods?labelSelector=k")
        self.assertEqual(len(json.loads(body.decode("utf-8"))["items"]), 1)


class Bookmarks(Base):
    def test_a_bookmark_at_max_rv_does_not_poison_the_cache(self):
        """A BOOKMARK at 2^64-1, then normal events. Applied, it made the
        cache skip every later event as old: it stayed at the first LIST
        forever. The proxy must end at the upstream's real state."""
        state = {"rv": 12}
        lists = [page(10, [pod("a", 10)]), page(12, [pod("a", 12), pod("b", 11)])]

        def watch(q, n):
            if n == 0:
                return [b'{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1",'
                        b'"metadata":{"resourceVersion":"%d"}}}\n' % MAXU64,
                        ev("ADDED", pod("b", 11)), ev("MODIFIED", pod("a", 12))]
            return []
        up = Upstream(lambda q, n: lists[min(n, 1)], watch,
                      on_probe=lambda: page(state["rv"], []))
        proxy = self.start(up)
        h.wait_ready(proxy.url)
        w = h.Watch(proxy.url + "/api/v1/pods?watch=true&resourceVersion=10")
        self.addCleanup(w.close)
        h.wait_until(lambda: self.pods(proxy) == [("a", "12"), ("b", "11")],
                     timeout=20, what="the proxy to reach the upstream's state")
        rv = self.metric(proxy, "informer_proxy_cache_resource_version", resource="pods")
        self.assertEqual(rv, 12)
        # the local watcher: a true stream, RVs only going up, ending there
        evs = w.wait_for(2)
        rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in evs]
        self.assertEqual(rvs, sorted(rvs))
        self.assertTrue(all(r < MAXU64 for r in rvs))
        self.assertIn("BOOKMARK at resourceVersion %d" % MAXU64, proxy.logs())

    def test_an_event_going_backwards_on_a_stream_relists(self):
        lists = [page(10, [pod("a", 10)]), page(14, [pod("a", 14)])]
        up = Upstream(lambda q, n: lists[min(n, 1)],
                      lambda q, n: [ev("MODIFIED", pod("a", 13)), ev("MODIFIED", pod("a", 12))]
                      if n == 0 else [])
        proxy = self.start(up)
        h.wait_ready(proxy.url)
        h.wait_until(lambda: self.pods(proxy) == [("a", "14")], timeout=20,
                     what="a relist after the backwards event")
        self.assertEqual(self.metric(proxy, "informer_proxy_relists_total",
                                     resource="pods", reason="backwards"), 1)
        self.assertIn("went backwards", proxy.logs())


class Pages(Base):
    def test_a_page_past_the_cap_is_fetched_in_halves(self):
        """--upstream-page-max-mib 2, pages of 8: the page holding one 3 MB
        item is fetched again with 4, 2, then 1 item; that item alone is
        skipped (too_large) and the other 19 are cached."""
        items = [pod("p%02d" % i, i + 1) for i in range(20)]
        items[10]["metadata"]["annotations"] = {"x": "y" * (3 << 20)}

        def lst(q, n):
            start = int(q.get("continue", "0"))
            limit = int(q["limit"])
            end = min(start + limit, len(items))
            return page(30, items[start:end], str(end) if end < len(items) else None)
        up = Upstream(lst, lambda q, n: [])
        proxy = self.start(up, "--upstream-page-max-mib", "2", "--page-size", "8")
        h.wait_ready(proxy.url, timeout=20)
        got = self.pods(proxy)
        self.assertEqual(len(got), 19)
        self.assertNotIn("p10", [n for n, _ in got])
        limits = [q["limit"] for q in up.queries if "watch" not in q]
        self.assertIn("1", limits)
        self.assertEqual(self.metric(proxy, "informer_proxy_upstream_items_rejected_total",
                                     resource="pods", reason="too_large"), 1)
        self.assertLess(self.rss(proxy), 150 << 20)

    def endless(self, token):
        """The first LIST is normal; the watch then ends with 410, and every
        later LIST is a continue chain that never ends."""
        def lst(q, n):
            if n == 0:
                return page(10, [pod("a", 10)])
            c = int(q["continue"]) if q.get("continue", "x").isdigit() else 0
            return page(11, [pod("e%d" % c, 11, annotations={"x": "y" * 200000})], token(c))
        gone = b'{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}\n'
        up = Upstream(lst, lambda q, n: [gone] if n == 0 else [])
        proxy = self.start(up, "--upstream-list-max-mib", "8")
        h.wait_ready(proxy.url)
        return up, proxy

    def test_an_endless_continue_chain_is_abandoned(self):
        up, proxy = self.endless(lambda c: str(c + 1))
        h.wait_until(lambda: "--upstream-list-max-mib" in proxy.logs(), timeout=60,
                     interval=0.5, what="the endless LIST to be abandoned")
        self.assertEqual(self.pods(proxy), [("a", "10")], "the old cache keeps serving")
        self.assertLess(self.rss(proxy), 150 << 20)

    def test_a_repeating_continue_token_is_abandoned(self):
        up, proxy = self.endless(lambda c: "same")
        h.wait_until(lambda: "continue token it sent before" in proxy.logs(), timeout=30,
                     interval=0.5, what="the looping LIST to be abandoned")
        self.assertEqual(self.pods(proxy), [("a", "10")])

    def test_a_continue_cycle_is_abandoned(self):
        # 1, 2, 1...: no token repeats at once, the chain goes round
        up, proxy = self.endless(lambda c: str(c % 2 + 1))
        h.wait_until(lambda: "continue token it sent before" in proxy.logs(), timeout=30,
                     interval=0.5, what="the cycling LIST to be abandoned")
        self.assertNotIn("--upstream-list-max-mib", proxy.logs())
        self.assertEqual(self.pods(proxy), [("a", "10")])


if __name__ == "__main__":
    unittest.main()
