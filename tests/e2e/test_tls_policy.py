"""--tls-min-version and --tls-cipher-suites on the HTTPS listener, with
the apiserver's names and defaults: TLS 1.2 at least unless told, the
listed TLS 1.2 suites only, unknown names refused at startup.

The client is Python's ssl (OpenSSL) pinned to one version and one
suite; OpenSSL's security level 0 lets it offer TLS 1.1 at all.
"""
import os
import socket
import ssl
import subprocess
import tempfile
import unittest

import harness as h
import certs


def attempt(url, ca, version, ciphers=None):
    """A handshake at exactly `version`, then one GET; returns the status
    line's code, or the exception's name when either failed."""
    host, port = url.split("//")[1].rsplit(":", 1)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(ca)
    ctx.minimum_version = ctx.maximum_version = version
    ctx.set_ciphers((ciphers or "DEFAULT") + ":@SECLEVEL=0")
    try:
        with socket.create_connection((host, int(port)), timeout=15) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                s.sendall(b"GET /api/v1/pods HTTP/1.1\r\nHost: localhost\r\n"
                          b"Connection: close\r\n\r\n")
                data = b""
                while True:
                    d = s.recv(65536)
                    if not d:
                        break
                    data += d
        if not data:
            return "closed"
        return int(data.split()[1])
    except (ssl.SSLError, OSError) as e:
        return type(e).__name__


class TLSPolicy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tls-policy-")
        cls.pki = certs.make_pki(os.path.join(cls.tmp, "pki"))  # ECDSA P-256
        cls.fake = h.fake("--quiet", seed="pods=2")

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()

    def serve(self, *extra):
        p = h.proxy(self.fake.url, "pods", "--tls-cert-file", self.pki["server_cert"],
                    "--tls-private-key-file", self.pki["server_key"], *extra)
        self.addCleanup(p.stop)
        self.addCleanup(h.register(p.url, self.pki["ca"]))
        h.wait_ready(p.url)
        return p

    def test_default_refuses_tls11_and_takes_12_and_13(self):
        p = self.serve()
        V = ssl.TLSVersion
        self.assertNotEqual(attempt(p.url, self.pki["ca"], V.TLSv1_1), 200)
        self.assertNotEqual(attempt(p.url, self.pki["ca"], V.TLSv1), 200)
        self.assertEqual(attempt(p.url, self.pki["ca"], V.TLSv1_2), 200)
        self.assertEqual(attempt(p.url, self.pki["ca"], V.TLSv1_3), 200)
        # outside Go's defaults: CBC with SHA-256, and RSA key exchange
        self.assertNotEqual(attempt(p.url, self.pki["ca"], V.TLSv1_2,
                                    "ECDHE-ECDSA-AES128-SHA256"), 200)
        self.assertEqual(attempt(p.url, self.pki["ca"], V.TLSv1_2,
                                 "ECDHE-ECDSA-CHACHA20-POLY1305"), 200)

    def test_min_version_13_refuses_tls12(self):
        p = self.serve("--tls-min-version", "VersionTLS13")
        self.assertNotEqual(attempt(p.url, self.pki["ca"], ssl.TLSVersion.TLSv1_2), 200)
        self.assertEqual(attempt(p.url, self.pki["ca"], ssl.TLSVersion.TLSv1_3), 200)

    def test_min_version_11_takes_tls11(self):
        p = self.serve("--tls-min-version=VersionTLS11")
        self.assertEqual(attempt(p.url, self.pki["ca"], ssl.TLSVersion.TLSv1_1,
                                 "ECDHE-ECDSA-AES128-SHA"), 200)

    def test_suite_outside_the_list_is_refused(self):
        p = self.serve("--tls-cipher-suites",
                       "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256")
        V, ca = ssl.TLSVersion, self.pki["ca"]
        self.assertEqual(attempt(p.url, ca, V.TLSv1_2, "ECDHE-ECDSA-AES128-GCM-SHA256"), 200)
        # no part of it is enabled: the handshake fails
        self.assertNotEqual(attempt(p.url, ca, V.TLSv1_2, "ECDHE-ECDSA-AES128-SHA"), 200)
        # its cipher is enabled for TLS 1.3: the request is refused
        self.assertNotEqual(attempt(p.url, ca, V.TLSv1_2, "ECDHE-ECDSA-AES256-GCM-SHA384"), 200)
        self.assertNotEqual(attempt(p.url, ca, V.TLSv1_2, "ECDHE-ECDSA-CHACHA20-POLY1305"), 200)
        # TLS 1.3's suites are fixed
        self.assertEqual(attempt(p.url, ca, V.TLSv1_3), 200)

    def test_unknown_names_refused_at_startup(self):
        for flag, value in (("--tls-min-version", "VersionTLS14"),
                            ("--tls-min-version", "TLS12"),
                            ("--tls-cipher-suites", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,NOPE"),
                            ("--tls-cipher-suites", "TLS_RSA_WITH_3DES_EDE_CBC_SHA")):
            r = subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--listen",
                                "127.0.0.1:0", "--server", self.fake.url, "--resources",
                                "pods", "--tls-cert-file", self.pki["server_cert"],
                                "--tls-private-key-file", self.pki["server_key"], flag, value],
                               capture_output=True, text=True, timeout=30)
            self.assertNotEqual(r.returncode, 0, value)
            self.assertIn(flag, r.stderr + r.stdout)


if __name__ == "__main__":
    unittest.main()
