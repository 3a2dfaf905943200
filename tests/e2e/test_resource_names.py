"""--resources takes every name kubectl takes.

Short names (po, cm), singular (pod), Kind (ConfigMap), Kind.group
(Lease.coordination.k8s.io), resource.group and singular.group of a
custom resource, any case: each is resolved through the fake's
aggregated discovery and cached, which the fake's counters show (one
LIST and one WATCH each). A custom resource whose CRD is not installed
yet is retried until --startup-timeout, then named in one error line;
one installed meanwhile (here: the upstream switched to a fake that
serves it) is picked up.
"""
import os
import socket
import subprocess
import threading
import time
import unittest

import harness as h

CRD = "widgets.example.com/v1:Widget"


def stats(fake):
    return h.get_json(fake.url + "/fake/stats")[1]["resources"]


class Switch:
    """A TCP relay to one upstream port, which the test may change: new
    connections go to the current target."""

    def __init__(self, port):
        self.port = port
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            try:
                u = socket.create_connection(("127.0.0.1", self.port))
            except OSError:
                c.close()
                continue
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while True:
                d = a.recv(65536)
                if not d:
                    break
                b.sendall(d)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def proxy_exit(server_url, resources, *extra, timeout=30):
    """Run the proxy until it exits; (exit status, its log)."""
    p = subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
                        "--server", server_url, "--resources", resources, *extra],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout


def port_of(url):
    return int(url.rsplit(":", 1)[1])


class ResourceNames(unittest.TestCase):
    def test_every_kubectl_spelling_is_cached(self):
        f, p = h.fake_and_proxy(
            self, "po,ConfigMap,Lease.coordination.k8s.io,NS,widget.example.com,svc.v1",
            fake_args=("--quiet", "--crd", CRD), seed="pods=4,widgets.example.com=3")
        keys = ("pods", "configmaps", "leases.coordination.k8s.io", "namespaces",
                "widgets.example.com", "services")
        # ready means listed; each watch follows its LIST a moment later
        st = h.poll(lambda: (lambda s: s if all(s[k]["watch"] for k in keys) else None)(stats(f)))
        st = st or stats(f)
        for key in keys:
            self.assertEqual((st[key]["list"], st[key]["watch"]), (1, 1), key)
        # and served from the cache: the fake sees no more LISTs
        s, lst = h.get_json(p.url + "/api/v1/pods?resourceVersion=0")
        self.assertEqual((s, len(lst["items"])), (200, 4))
        s, lst = h.get_json(p.url + "/apis/example.com/v1/widgets?resourceVersion=0")
        self.assertEqual((s, len(lst["items"])), (200, 3))
        self.assertEqual(stats(f)["pods"]["list"], 1)
        self.assertEqual(stats(f)["widgets.example.com"]["list"], 1)
        logs = p.logs()
        self.assertIn("--resources: po is Pod in core/v1", logs)
        self.assertIn("--resources: widget.example.com is Widget in example.com/v1", logs)

    def test_the_same_resource_twice_is_refused(self):
        f = h.fake("--quiet", seed="pods=1")
        self.addCleanup(f.stop)
        rc, out = proxy_exit(f.url, "pods,po")
        self.assertEqual(rc, 1, out)
        self.assertIn('--resources: "po" named twice', out)

    def test_missing_crd_named_after_the_startup_timeout(self):
        f = h.fake("--quiet", seed="pods=1")
        self.addCleanup(f.stop)
        t0 = time.monotonic()
        rc, out = proxy_exit(f.url, "po,widgets.example.com,gizmo",
                               "--startup-timeout", "3")
        took = time.monotonic() - t0
        self.assertEqual(rc, 1, out)
        errors = [l for l in out.splitlines() if " error " in l]
        self.assertEqual(len(errors), 1, out)
        self.assertIn("--startup-timeout", errors[0])
        self.assertIn("widgets.example.com", errors[0])
        self.assertIn("gizmo", errors[0])
        self.assertNotIn("po:", errors[0])  # that one resolved
        self.assertGreaterEqual(took, 3)
        # retried meanwhile: more than one round of discovery
        self.assertIn("retrying", out)

    def test_refused_discovery_exits_at_once(self):
        # a 401 is not a CRD about to appear: no waiting for the timeout
        f = h.fake("--quiet", "--token", "right-token", seed="pods=1")
        self.addCleanup(f.stop)
        t0 = time.monotonic()
        rc, out = proxy_exit(f.url, "po", "--startup-timeout", "60")
        self.assertEqual(rc, 1, out)
        errors = [l for l in out.splitlines() if " error " in l]
        self.assertEqual(len(errors), 1, out)
        self.assertIn("--resources: po: the upstream refused", errors[0])
        self.assertIn("401", errors[0])
        self.assertNotIn("retrying", out)
        self.assertLess(time.monotonic() - t0, 30)  # long before the timeout

    def test_crd_installed_while_waiting_is_picked_up(self):
        bare = h.fake("--quiet", seed="pods=1")
        self.addCleanup(bare.stop)
        full = h.fake("--quiet", "--crd", CRD, seed="pods=1,widgets.example.com=2")
        self.addCleanup(full.stop)
        sw = Switch(port_of(bare.url))
        self.addCleanup(sw.sock.close)
        log = os.path.join(self.tmpdir(), "proxy.log")
        with open(log, "w") as out:
            proc = subprocess.Popen(
                [os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
                 "--server", sw.url, "--resources", "pods,widgets.example.com",
                 "--startup-timeout", "60"], stdout=out, stderr=subprocess.STDOUT)
        self.addCleanup(lambda: (proc.poll() is None and proc.terminate(), proc.wait()))

        def text():
            with open(log) as f:
                return f.read()
        h.wait_until(lambda: "waiting for the upstream to serve" in text(), timeout=20,
                     what="the proxy waiting for the CRD")
        time.sleep(1.5)  # at least one more round against the bare fake
        self.assertIsNone(proc.poll(), text())
        self.assertEqual(stats(full)["widgets.example.com"]["list"], 0)
        sw.port = port_of(full.url)  # the CRD is "installed"
        h.wait_until(lambda: h.LISTEN_RE.search(text()), timeout=20,
                     what="the proxy listening once the CRD is there")
        url = h.LISTEN_RE.search(text()).group(1)
        h.wait_ready(url)
        s, lst = h.get_json(url + "/apis/example.com/v1/widgets?resourceVersion=0")
        self.assertEqual((s, len(lst["items"])), (200, 2))
        self.assertIn("widgets.example.com is Widget in example.com/v1", text())

    def tmpdir(self):
        import tempfile
        return tempfile.mkdtemp(prefix="names-")


if __name__ == "__main__":
    unittest.main()
