"""The reflector against a scripted upstream that sends bad bytes: the
cache is never half-applied, the reflector relists, and local watchers
get a true stream across the relist."""
import json
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import harness as h


def pod(name, rv):
    return {"metadata": {"name": name, "namespace": "d", "resourceVersion": str(rv),
                         "uid": "u-" + name}, "spec": {}, "status": {"phase": "Running"}}


class Script:
    """What the upstream answers: a list of LIST bodies and WATCH scripts,
    each used in turn (the last one repeats)."""

    def __init__(self, lists, watches):
        self.lists, self.watches = lists, watches
        self.nlist = self.nwatch = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()


def make_handler(script):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_GET(self):
            if not self.path.split("?")[0].endswith("/pods"):
                # discovery and the rest: not part of the script
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            watch = "watch=true" in self.path
            probe = "limit=1&" in self.path + "&"   # a freshness probe
            with script.lock:
                if probe:
                    i = max(0, min(script.nlist, len(script.lists)) - 1)
                elif watch:
                    i = min(script.nwatch, len(script.watches) - 1)
                    script.nwatch += 1
                else:
                    i = min(script.nlist, len(script.lists) - 1)
                    script.nlist += 1
            if not watch:
                body = script.lists[i]
                body = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for line in script.watches[i]:
                    data = line if isinstance(line, bytes) else (json.dumps(line) + "\n").encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    self.wfile.flush()
                    time.sleep(0.05)
                while i == len(script.watches) - 1 and not script.stop.wait(0.1):
                    pass
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
    return Handler


class Upstream:
    def __init__(self, script):
        self.script = script
        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script))
        self.srv.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.script.stop.set()
        self.srv.shutdown()
        self.srv.server_close()


def names(lst):
    return [(o["metadata"]["name"], o["metadata"]["resourceVersion"]) for o in lst["items"]]


class MalformedUpstream(unittest.TestCase):
    def run_proxy(self, script):
        up = Upstream(script)
        proxy = h.proxy(up.url, "pods")
        self.addCleanup(up.close)
        self.addCleanup(proxy.stop)
        return up, proxy

    def test_malformed_watch_line_relists_and_watchers_stay_true(self):
        list1 = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "10"},
                 "items": [pod("a", 10)]}
        list2 = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "13"},
                 "items": [pod("b", 11), pod("c", 13)]}
        watch1 = [{"type": "ADDED", "object": pod("b", 11)}, b'{"type":"MODIFIED","object":{"metadata":\n']
        up, proxy = self.run_proxy(Script([list1, list2], [watch1, []]))
        h.wait_ready(proxy.url)
        # history from RV 10 holds everything, whenever the watch opens
        w = h.Watch(proxy.url + "/api/v1/pods?watch=true&resourceVersion=10")
        self.addCleanup(w.close)
        h.wait_until(lambda: names(h.get_json(proxy.url + "/api/v1/pods")[1]) == [("b", "11"), ("c", "13")],
                     timeout=10, what="relist after the malformed line")
        evs = w.wait_for(3)
        got = [(e["type"], e["object"]["metadata"]["name"], e["object"]["metadata"]["resourceVersion"])
               for e in evs]
        # b added (a real event), then the relist's differences as a true
        # history: a's deletion takes the first RV no survivor holds (12),
        # c comes at its own RV, and RVs only go up
        self.assertEqual(got, [("ADDED", "b", "11"), ("DELETED", "a", "12"), ("ADDED", "c", "13")])
        self.assertGreaterEqual(up.script.nlist, 2)
        self.assertIn("malformed event", proxy.logs())

    def test_malformed_list_is_never_half_applied(self):
        good = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "5"},
                "items": [pod("x", 4), pod("y", 5)]}
        bad = b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"x","namespace":"d","resourceVersion":"4"}},{"meta'
        up, proxy = self.run_proxy(Script([bad, bad, good], [[]]))
        h.wait_ready(proxy.url)
        s, lst = h.get_json(proxy.url + "/api/v1/pods")
        self.assertEqual(names(lst), [("x", "4"), ("y", "5")])
        self.assertEqual(lst["metadata"]["resourceVersion"], "5")
        self.assertEqual(up.script.nlist, 3)
        self.assertIn("malformed page", proxy.logs())


if __name__ == "__main__":
    unittest.main()
