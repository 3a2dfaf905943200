"""Hostile inputs from a client: numbers past their type's range get a
clear answer and never crash or hang the proxy (issue: hardening).

Runs under `make SANITIZE=1 test` too, where UBSan aborts the proxy on a
signed overflow: the harness then fails the test at stop.
"""
import json
import unittest

import harness as h


class Numbers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=5")
        cls.proxy = h.proxy(cls.fake.url, "pods")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()   # checks the exit code and for sanitizer reports
        cls.fake.stop()

    def test_huge_timeout_seconds_is_a_long_watch(self):
        w = h.Watch(self.proxy.url + "/api/v1/pods?watch=1&resourceVersion=0"
                    "&timeoutSeconds=9223372036854775807", timeout=10)
        try:
            self.assertEqual(w.status, 200)
            evs = w.wait_for(5)
            self.assertEqual([e["type"] for e in evs], ["ADDED"] * 5)
        finally:
            w.close()
        self.assertEqual(h.request("GET", self.proxy.url + "/healthz")[0], 200)

    def test_resource_version_past_uint64(self):
        big = "18446744073709551616"   # 2^64
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?watch=1&resourceVersion=" + big)
        st = json.loads(raw)
        # a watch answers it as a LIST, and as the apiserver, whose
        # watch cache parses it as storage does: 500, no reason
        self.assertEqual((s, st["kind"], st.get("reason")), (500, "Status", None))
        self.assertIn("value out of range", st["message"])
        # LIST answers it as the apiserver answers any unparsable value
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?resourceVersion=" + big)
        self.assertEqual(s, 500)
        self.assertIn("resourceVersion: Invalid value", json.loads(raw)["message"])
        # the largest value is a number like any other: a watch from it
        # is accepted (nothing newer), not an error
        w = h.Watch(self.proxy.url + "/api/v1/pods?watch=1&timeoutSeconds=2"
                    "&resourceVersion=18446744073709551615", timeout=10)
        try:
            self.assertEqual(w.status, 200)
        finally:
            w.close()
        # strconv.ParseUint takes no sign, space or base prefix: each is
        # its invalid-syntax 500
        for bad in ("+5", " 5", "5 ", "-1", "0x10"):
            s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?watch=1&resourceVersion="
                                  + bad.replace(" ", "%20").replace("+", "%2B"))
            self.assertEqual(s, 500, bad)
            self.assertIn("invalid syntax", json.loads(raw)["message"], bad)


if __name__ == "__main__":
    unittest.main()


class OddButValid(unittest.TestCase):
    """Data the apiserver accepts is cached and served, however odd."""

    def test_an_object_with_66000_labels(self):
        fake, proxy = h.fake_and_proxy(self, "configmaps", seed="configmaps=5")
        labels = {"k%05d" % i: "v" for i in range(66000)}
        s, _, raw = h.request("POST", fake.url + "/api/v1/namespaces/ns-1/configmaps", body={
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "many-labels", "namespace": "ns-1", "labels": labels}})
        self.assertEqual(s, 201, raw[:300])
        url = proxy.url + "/api/v1/namespaces/ns-1/configmaps/many-labels?resourceVersion=0"
        h.wait_until(lambda: h.request("GET", url)[0] == 200, timeout=20,
                     what="the 66000-label object in the cache")
        obj = json.loads(h.request("GET", url)[2])
        self.assertEqual(len(obj["metadata"]["labels"]), 66000)
        # its last label is indexed like its first
        for sel in ("k00000%3Dv", "k65999%3Dv"):
            s, lst = h.get_json(proxy.url + "/api/v1/configmaps?resourceVersion=0"
                                "&labelSelector=" + sel)
            self.assertEqual([o["metadata"]["name"] for o in lst["items"]], ["many-labels"])
        # and the resource keeps moving after it
        s, _, raw = h.request("PATCH", fake.url + "/api/v1/namespaces/ns-2/configmaps/cm-2",
                              body=json.dumps({"metadata": {"labels": {"after": "yes"}}}).encode(),
                              headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(s, 200)
        h.wait_until(lambda: h.get_json(proxy.url + "/api/v1/namespaces/ns-2/configmaps/cm-2"
                                        "?resourceVersion=0")[1]["metadata"]["labels"]
                     .get("after") == "yes", timeout=20, what="a later change")


class Pagination(unittest.TestCase):
    """One client paging through a snapshot keeps it while another pages
    through a hundred others: its continue token is good for minutes, as
    the apiserver's is until etcd compacts, not evicted within seconds."""

    def test_other_clients_do_not_evict_a_paged_snapshot(self):
        # history 16: the fake forgets old states fast, so a page that
        # falls back to it would be 410, not a silent pass
        fake, proxy = h.fake_and_proxy(self, "pods", seed="pods=10", history=16)
        base = proxy.url + "/api/v1/pods?limit=3&resourceVersionMatch=NotOlderThan"
        rv0 = h.get_json(fake.url + "/api/v1/pods")[1]["metadata"]["resourceVersion"]
        s, first = h.get_json(base + "&resourceVersion=" + rv0)
        self.assertEqual(s, 200)
        token = first["metadata"]["continue"]
        for i in range(100):   # another client, a new snapshot each time
            s, _, raw = h.request(
                "PATCH", fake.url + "/api/v1/namespaces/ns-%d/pods/web-%d" % (i % 10, i % 10),
                body=json.dumps({"metadata": {"labels": {"n": str(i)}}}).encode(),
                headers={"Content-Type": "application/merge-patch+json"})
            self.assertEqual(s, 200, raw[:200])
            rv = json.loads(raw)["metadata"]["resourceVersion"]
            s, other = h.get_json(base + "&resourceVersion=" + rv)
            self.assertEqual((s, other["metadata"]["resourceVersion"]), (200, rv))
            self.assertIn("continue", other["metadata"])
        names = [o["metadata"]["name"] for o in first["items"]]
        while token:
            s, _, raw = h.request("GET", proxy.url + "/api/v1/pods?limit=3&continue=" + token)
            self.assertEqual(s, 200, raw[:300])
            page = json.loads(raw)
            self.assertEqual(page["metadata"]["resourceVersion"],
                             first["metadata"]["resourceVersion"])
            names += [o["metadata"]["name"] for o in page["items"]]
            # the state of the first page: no label a later write set
            self.assertFalse([o for o in page["items"] if "n" in o["metadata"].get("labels", {})])
            token = page["metadata"].get("continue")
        self.assertEqual(len(names), 10)
        metrics = h.request("GET", proxy.url + "/metrics")[2].decode()
        # (a read that waits too long for the cache may go upstream on a
        # slow machine; the pages above came from the pin, or the fake's
        # 16-event history would have answered 410)
        self.assertIn("informer_proxy_continue_pins_evicted_total 0", metrics)


class RelistStorm(unittest.TestCase):
    """Every watch the upstream sends a bad line on: the reflector relists,
    but backs off like client-go, exponentially, instead of relisting as
    fast as the LISTs succeed."""

    def test_bad_events_back_off(self):
        import threading
        import time
        cap_ms = 1000
        fake, proxy = h.fake_and_proxy(self, "pods", "--backoff-max-ms", str(cap_ms),
                                       seed="pods=20")
        stop = threading.Event()

        def churn():   # events on every watch, so every watch meets a bad line
            i = 0
            while not stop.is_set():
                h.request("PATCH", fake.url + "/api/v1/namespaces/ns-%d/pods/web-%d"
                          % (i % 10, i % 20),
                          body=json.dumps({"metadata": {"labels": {"i": str(i)}}}).encode(),
                          headers={"Content-Type": "application/merge-patch+json"})
                i += 1
                stop.wait(0.02)
        th = threading.Thread(target=churn, daemon=True)
        th.start()
        self.addCleanup(stop.set)
        lists0 = h.get_json(fake.url + "/fake/stats")[1]["resources"]["pods"]["list"]
        h.request("POST", fake.url + "/fake/faults", body={"malformedNext": 100000})
        t0 = time.time()
        # the window the LISTs are counted in, not a wait: long enough for
        # a storm to show (hundreds of LISTs) next to a backoff's ten
        time.sleep(1.5)
        h.request("POST", fake.url + "/fake/faults", body={})
        lists = h.get_json(fake.url + "/fake/stats")[1]["resources"]["pods"]["list"] - lists0
        window = time.time() - t0
        # 5 ms doubling with jitter [d/2, d]: at most 2 + one per sleep
        n, spent, d = 2, 0.0, 5.0
        while spent + d / 2 <= window * 1000:
            spent += d / 2
            n += 1
            d = min(d * 2, cap_ms)
        self.assertGreaterEqual(lists, 2, "no relist at all")
        self.assertLessEqual(lists, n, "%d LISTs in %.1fs: a relist storm (at most %d with "
                             "backoff)" % (lists, window, n))
        stop.set()
        th.join(5)
        # and it converges once the bad lines stop
        h.wait_until(lambda: sorted(o["metadata"]["resourceVersion"] for o in
                                    h.get_json(proxy.url + "/api/v1/pods?resourceVersion=0")[1]["items"])
                     == sorted(o["metadata"]["resourceVersion"] for o in
                               h.get_json(fake.url + "/api/v1/pods")[1]["items"]),
                     timeout=20, what="the proxy to converge")


def go_indent(compact):
    """The compact JSON indented as Go's json.Indent does with two spaces
    (python's own, written apart from the proxy's)."""
    return json.dumps(json.loads(compact), indent=2, ensure_ascii=False,
                      separators=(",", ": ")).encode()


class PrettyStream(unittest.TestCase):
    """A big LIST for curl is indented while it is sent: the same bytes as
    the compact LIST indented, gzip-compressed when the client takes it;
    chunked the first time, each item's indented length kept as it goes,
    then with its length told first."""

    def test_curl_list_of_many_pods(self):
        import gzip
        fake, proxy = h.fake_and_proxy(self, "pods", seed="pods=3000")
        path = proxy.url + "/api/v1/pods?resourceVersion=0"
        st, _, compact = h.request("GET", path)
        self.assertEqual(st, 200)
        self.assertGreater(len(compact), 1 << 20)  # streamed, not the small path
        want = go_indent(compact)
        curl = {"User-Agent": "curl/7.88.1"}
        st, hdrs, pretty = h.request("GET", path, headers=curl)
        self.assertEqual(st, 200)
        self.assertEqual(hdrs.get("Content-Type"), "application/json")
        self.assertIsNone(hdrs.get("Content-Encoding"))
        self.assertEqual(pretty, want)
        self.assertEqual(hdrs.get("Transfer-Encoding"), "chunked")
        # again, the items' lengths kept: the same bytes, the length told
        st, hdrs, again = h.request("GET", path, headers=curl)
        self.assertEqual((st, hdrs.get("Content-Length")), (200, str(len(want))))
        self.assertIsNone(hdrs.get("Transfer-Encoding"))
        self.assertEqual(again, want)
        st, hdrs, gz = h.request("GET", path, headers=dict(curl, **{"Accept-Encoding": "gzip"}))
        self.assertEqual(st, 200)
        self.assertEqual(hdrs.get("Content-Encoding"), "gzip")
        self.assertEqual(hdrs.get("Vary"), "Accept-Encoding")
        self.assertEqual(gzip.decompress(gz), want)
        # a selector's LIST (other pieces) and pretty=true for any client
        st, _, sel = h.request("GET", path + "&labelSelector=app%3Dweb&pretty=true")
        st2, _, selc = h.request("GET", path + "&labelSelector=app%3Dweb")
        self.assertEqual((st, st2), (200, 200))
        self.assertEqual(sel, go_indent(selc))


class PrettyMemory(unittest.TestCase):
    """Slow curl-like clients asking for a big LIST: the indented answer is
    made while it is sent, so each holds a chunk, not a copy of the list,
    and each still gets all of it."""

    def test_twenty_slow_curls(self):
        import socket
        fake, proxy = h.fake_and_proxy(self, "pods", seed="pods=3000")

        def rss_mb():
            return h.rss_bytes(proxy.proc.pid) / (1 << 20)
        host, port = proxy.url.split("//")[1].split(":")
        compact = h.request("GET", proxy.url + "/api/v1/pods?resourceVersion=0")[2]
        want = go_indent(compact)
        size = len(want) / (1 << 20)
        before = rss_mb()
        socks = []
        for _ in range(20):
            s = socket.create_connection((host, int(port)))
            # a receive window the size of loopback's MSS: a smaller one
            # would stall the reads at the end on TCP's zero-window probes
            # (a segment per 200 ms); either way the proxy's writes block
            # long before the list is sent
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            s.sendall(b"GET /api/v1/pods?resourceVersion=0 HTTP/1.1\r\nHost: localhost\r\n"
                      b"User-Agent: curl/7.88.1\r\nConnection: close\r\n\r\n")
            socks.append(s)
        self.addCleanup(lambda: [s.close() for s in socks])
        # every request answered (a first chunk arrives), none read further
        firsts = []
        for s in socks:
            s.settimeout(30)
            firsts.append(s.recv(1024))
            self.assertTrue(firsts[-1].startswith(b"HTTP/1.1 200"))
        grown = rss_mb() - before
        # a copy each would be 20 x the indented LIST; a chunk each is far
        # below even one copy
        self.assertLess(grown, size,
                        "RSS grew %.0f MB for 20 slow pretty LISTs of %.1f MB" % (grown, size))
        # the proxy still answers others at once
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/namespaces/ns-1/pods/web-1",
                                   timeout=10)[0], 200)
        # and the slow readers, read on, get the indented LIST (its start;
        # PrettyStream reads a whole one)
        for i in (0, 19):
            parts, got = [firsts[i]], len(firsts[i])
            while got < (1 << 19):
                parts.append(socks[i].recv(1 << 16))
                self.assertTrue(parts[-1], "the answer ended early")
                got += len(parts[-1])
            head, _, body = b"".join(parts).partition(b"\r\n\r\n")
            # chunked while the items' indented lengths are not known;
            # with its length once most are (kept by the readers before)
            if b"content-length: %d" % len(want) in head.lower():
                payload = body
            else:
                self.assertIn(b"transfer-encoding: chunked", head.lower())
                payload = dechunk_prefix(body)
            self.assertGreater(len(payload), 1 << 18)
            self.assertEqual(payload, want[:len(payload)])


def dechunk_prefix(b):
    """The payload of the whole chunks at the start of a chunked body."""
    out, i = [], 0
    while True:
        j = b.find(b"\r\n", i)
        if j < 0:
            break
        n = int(b[i:j].split(b";")[0], 16)
        if n == 0 or j + 2 + n + 2 > len(b):
            break
        out.append(b[j + 2:j + 2 + n])
        i = j + 2 + n + 2
    return b"".join(out)


class PassthroughTimeout(unittest.TestCase):
    """A silent upstream cannot hold forwarded requests for ever; watches
    forwarded upstream are long-running and keep going."""

    def test_silent_upstream(self):
        import os
        import signal
        import time
        timeout = 1   # --passthrough-timeout's least
        fake, proxy = h.fake_and_proxy(self, "pods", "--passthrough-timeout", str(timeout),
                                       seed="pods=5,services=5")
        # a forwarded watch outlives the timeout
        w0 = time.time()
        w = h.Watch(proxy.url + "/api/v1/namespaces/ns-1/services?watch=1"
                    "&resourceVersion=0&timeoutSeconds=%d" % (3 * timeout + 2), timeout=20)
        self.addCleanup(w.close)
        self.assertEqual(w.status, 200)
        os.kill(fake.proc.pid, signal.SIGSTOP)
        self.addCleanup(lambda: os.kill(fake.proc.pid, signal.SIGCONT))
        t = time.time()
        s, _, raw = h.request("GET", proxy.url + "/api/v1/namespaces/ns-1/services",
                              timeout=30)
        took = time.time() - t
        self.assertEqual(s, 503, raw[:300])
        self.assertEqual(json.loads(raw)["reason"], "ServiceUnavailable")
        self.assertLess(took, 10)
        os.kill(fake.proc.pid, signal.SIGCONT)
        # past twice the timeout, short of the watch's own deadline
        time.sleep(max(0.0, 2 * timeout - (time.time() - w0)))
        self.assertFalse(w.closed, "the forwarded watch was cut by the timeout")
