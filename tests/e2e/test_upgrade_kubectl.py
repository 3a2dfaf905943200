"""kubectl exec, attach, cp and port-forward through the proxy, over
WebSocket and SPDY.

kubectl, unchanged, points at the proxy; the fake apiserver behind it
upgrades pods/exec and pods/portforward as the apiserver does
(tests/fake-apiserver/fake_exec.c). Each runs twice: with kubectl's
default (WebSocket: v5.channel.k8s.io for exec and cp, SPDY tunnelled in
WebSocket for port-forward) and with the SPDY/3.1 fallback the
environment variables KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false and
KUBECTL_PORT_FORWARD_WEBSOCKETS=false select. The last class puts TLS on
both sides: the fake over HTTPS with a bearer token, the proxy serving
HTTPS and reaching it with the kubeconfig's CA and token.
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

import certs
import harness as h

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clients"))
import clients as c  # noqa: E402

POD = ("-n", "ns-1", "web-1")
SPDY_ENV = {"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false",
            "KUBECTL_PORT_FORWARD_WEBSOCKETS": "false"}
WS_ENV = {"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "true",
          "KUBECTL_PORT_FORWARD_WEBSOCKETS": "true"}


class EchoServer:
    """A local TCP server that echoes, for port-forward to reach."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    @staticmethod
    def _echo(conn):
        try:
            while True:
                d = conn.recv(65536)
                if not d:
                    break
                conn.sendall(d)
        except OSError:
            pass
        finally:
            conn.close()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class KubectlUpgradeBase:
    """The tests; subclasses set env (which protocol kubectl uses) and
    start the servers."""
    env = {}

    def kubectl(self, *args, input=None, timeout=60, extra_env=None):
        env = dict(self.k.env, **self.env)
        env.update(extra_env or {})
        return subprocess.run(self.k.argv(list(self.k_extra) + list(args)), input=input,
                              capture_output=True, timeout=timeout, env=env)

    def test_exec_echoes_stdin(self):
        data = os.urandom(1000).hex().encode() + b"\n"
        p = self.kubectl("exec", "-i", *POD, "--", "cat", input=data)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, data)

    def test_attach_echoes_stdin(self):
        data = b"attached " + os.urandom(20).hex().encode() + b"\n"
        p = self.kubectl("attach", "-i", *POD, input=data)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, data)

    def test_exec_exit_code(self):
        p = self.kubectl("exec", *POD, "--", "sh", "-c", "exit 3")
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn(b"command terminated with exit code 3", p.stderr)
        p = self.kubectl("exec", *POD, "--", "echo", "hello", "world")
        self.assertEqual((p.returncode, p.stdout), (0, b"hello world\n"), p.stderr)

    def test_exec_unknown_pod_is_404(self):
        p = self.kubectl("exec", "-n", "ns-1", "no-such-pod", "--", "true")
        self.assertEqual(p.returncode, 1)
        self.assertIn(b'pods "no-such-pod" not found', p.stderr)

    def test_cp_in_and_out(self):
        d = tempfile.mkdtemp()
        src = os.path.join(d, "in.bin")
        back = os.path.join(d, "out.bin")
        data = os.urandom(300000)
        with open(src, "wb") as f:
            f.write(data)
        name = "cp-%s.bin" % self.__class__.__name__
        p = self.kubectl("cp", src, "ns-1/web-1:/tmp/" + name)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.kubectl("cp", "ns-1/web-1:/tmp/" + name, back)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(back, "rb") as f:
            self.assertEqual(f.read(), data)
        # a file that is not there: tar's complaint, and kubectl fails
        p = self.kubectl("cp", "ns-1/web-1:/tmp/none-" + name, back + ".2")
        self.assertNotEqual(p.returncode, 0)
        self.assertFalse(os.path.exists(back + ".2"))

    def test_port_forward_round_trip(self):
        echo = EchoServer()
        self.addCleanup(echo.sock.close)
        local = free_port()
        env = dict(self.k.env, **self.env)
        pf = subprocess.Popen(self.k.argv(list(self.k_extra) + [
                                  "port-forward", *POD[:2], "pod/web-1",
                                  "%d:%d" % (local, echo.port)]),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.addCleanup(lambda: (pf.kill(), pf.wait()))
        # "Forwarding from 127.0.0.1:N -> M" once it listens
        line = pf.stdout.readline()
        self.assertIn(b"Forwarding from", line, pf.stderr.read() if not line else line)
        for size in (5, 200000):
            data = os.urandom(size)
            s = socket.create_connection(("127.0.0.1", local))
            s.settimeout(20)
            s.sendall(data)
            got = b""
            while len(got) < size:
                d = s.recv(65536)
                self.assertTrue(d, "closed after %d of %d bytes" % (len(got), size))
                got += d
            s.close()
            self.assertEqual(got, data)
        self.assertEqual(echo.accepted, 2)


class Plain(KubectlUpgradeBase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=3")
        cls.proxy = h.proxy(cls.fake.url, "pods")
        h.wait_ready(cls.proxy.url)
        cls.proxy_http = cls.proxy.url
        cls.k = c.Kubectl(cls.proxy.url)
        cls.k_extra = ()

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()


class WebSocket(Plain, unittest.TestCase):
    env = WS_ENV


class SPDY(Plain, unittest.TestCase):
    env = SPDY_ENV


class WithoutProxySupport(unittest.TestCase):
    """The fake itself refuses a request that does not upgrade, as the
    apiserver does: what kubectl got through the proxy before."""

    def test_plain_request_is_400(self):
        f = h.fake("--quiet", seed="pods=3")
        self.addCleanup(f.stop)
        s, _, body = h.request("POST", f.url + "/api/v1/namespaces/ns-1/pods/web-1/exec?command=true")
        self.assertEqual(s, 400)
        self.assertIn(b"Upgrade request required", body)


class ForbiddenUpstream(unittest.TestCase):
    """The fake's own 403 for pods/exec reaches kubectl through the proxy:
    the client's token goes upstream alone and the upstream decides."""

    def test_exec_forbidden_for_a_viewer(self):
        tmp = tempfile.mkdtemp()
        users = os.path.join(tmp, "users")
        with open(users, "w") as f:
            f.write("proxy-tok,proxy,1\nviewer-tok,viewer,2\nops-tok,ops,3\n")
        rules = os.path.join(tmp, "authz")
        with open(rules, "w") as f:
            f.write("proxy * * *\nviewer get,list,watch pods *\n"
                    "ops get,list,watch pods *\nops create,get pods/exec *\n")
        fake = h.fake("--quiet", "--users", users, "--authz", rules, seed="pods=3")
        self.addCleanup(fake.stop)
        kc = certs.kubeconfig(tmp, fake.url, token="proxy-tok")
        # kubectl sends a token only over https: the proxy serves it
        pki = certs.make_pki(os.path.join(tmp, "pki"))
        p = h.proxy(fake.url, "pods", "--kubeconfig", kc,
                    "--tls-cert-file", pki["server_cert"],
                    "--tls-private-key-file", pki["server_key"])
        self.addCleanup(p.stop)
        self.addCleanup(h.register(p.url, pki["ca"]))
        h.wait_ready(p.url)
        k = c.Kubectl(p.url)

        def run(token, env):
            return subprocess.run(k.argv(["--certificate-authority", pki["ca"],
                                          "--token", token, "exec", *POD, "--",
                                          "echo", "hi"]),
                                  capture_output=True, timeout=60, env=dict(k.env, **env))
        for env in (WS_ENV, SPDY_ENV):
            r = run("viewer-tok", env)
            self.assertEqual(r.returncode, 1, r.stdout)
            # the fake's own Status, through the proxy (after the
            # WebSocket refusal, kubectl tries SPDY, refused the same)
            self.assertIn(b'Error from server (Forbidden): pods "web-1" is forbidden: '
                          b'User "viewer" cannot create resource "pods/exec"', r.stderr)
            r = run("ops-tok", env)
            self.assertEqual((r.returncode, r.stdout), (0, b"hi\n"), r.stderr)


class TLSBothSides(KubectlUpgradeBase, unittest.TestCase):
    """https upstream with a token, https proxy: the upgrade's own TLS
    client trusts the kubeconfig's CA and sends its token."""
    env = {}

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.pki = certs.make_pki(os.path.join(cls.tmp, "pki"))
        cls.token = "upgrade-tls-token"
        cls.fake = h.fake("--quiet", "--tls-cert", cls.pki["server_cert"],
                          "--tls-key", cls.pki["server_key"], "--token", cls.token,
                          seed="pods=3")
        kc = certs.kubeconfig(cls.tmp, cls.fake.url, cls.pki, token=cls.token)
        cls.proxy = h.proxy(cls.fake.url, "pods", "--kubeconfig", kc,
                            "--tls-cert-file", cls.pki["server_cert"],
                            "--tls-private-key-file", cls.pki["server_key"])
        h.register(cls.proxy.url, cls.pki["ca"])
        h.wait_ready(cls.proxy.url)
        cls.proxy_http = cls.proxy.url
        cls.k = c.Kubectl(cls.proxy.url)
        # https without credentials makes kubectl prompt for a password:
        # it sends the fake's token, which the proxy forwards alone
        cls.k_extra = ("--certificate-authority", cls.pki["ca"], "--token", cls.token)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def test_spdy_fallback_over_tls(self):
        p = self.kubectl("exec", "-i", *POD, "--", "cat", input=b"over tls\n",
                         extra_env=SPDY_ENV)
        self.assertEqual((p.returncode, p.stdout), (0, b"over tls\n"), p.stderr)

    def test_client_without_token_goes_as_the_proxy(self):
        # no Authorization: the proxy lends its token over its own TLS
        # client, so the fake (which wants the token) upgrades
        import ssl
        ctx = ssl.create_default_context(cafile=self.pki["ca"])
        port = int(self.proxy.url.rsplit(":", 1)[1])
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                            server_hostname="127.0.0.1")
        self.addCleanup(s.close)
        s.sendall(b"GET /api/v1/namespaces/ns-1/pods/web-1/exec?command=echo&command=hi&stdout=true"
                  b" HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                  b"Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n")
        s.settimeout(20)
        buf = b""
        # up to the fake's WebSocket close frame: over HTTPS the end of
        # the TCP connection waits for the client (proxy/upgrade.h)
        while not buf.endswith(b"\x88\x02\x03\xe8"):
            d = s.recv(65536)
            if not d:
                break
            buf += d
        head, rest = buf.split(b"\r\n\r\n", 1)
        self.assertTrue(head.startswith(b"HTTP/1.1 101"), head)
        self.assertIn(b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", head)
        # the first server frame: binary, channel 1 (stdout), "hi\n"
        self.assertEqual(rest[:6], b"\x82\x04\x01hi\n")

    def test_untrusted_upstream_is_refused(self):
        # a second proxy that trusts another CA: it names the CA problem
        # in one line and exits at start; an upgrade that comes before
        # that is refused with 503 (the TLS handshake fails before any
        # request could reach the untrusted server)
        other = certs.make_pki(os.path.join(self.tmp, "other"))
        kc = certs.kubeconfig(self.tmp, self.fake.url, other, token=self.token,
                              name="kc-other")
        p = h.proxy(self.fake.url, "pods", "--kubeconfig", kc, "--startup-timeout", "60")
        self.addCleanup(p.stop, check=False)
        port = int(p.url.rsplit(":", 1)[1])
        buf = b""
        try:
            s = socket.create_connection(("127.0.0.1", port))
            self.addCleanup(s.close)
            s.sendall(b"GET /api/v1/namespaces/ns-1/pods/web-1/exec?command=true HTTP/1.1\r\n"
                      b"Host: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                      b"Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n")
            s.settimeout(20)
            while b"\r\n\r\n" not in buf:
                d = s.recv(65536)
                if not d:
                    break
                buf += d
        except OSError:
            pass          # it had exited already
        if buf:
            self.assertTrue(buf.startswith(b"HTTP/1.1 503"), buf[:200])
        self.assertNotEqual(p.proc.wait(timeout=30), 0)
        self.assertIn("cannot verify the upstream", p.logs())
        self.assertIn("certificate-authority", p.logs())
        self.assertNotIn(self.token, p.logs())


if __name__ == "__main__":
    unittest.main()
