"""bin/fake-apiserver: pods/exec and pods/attach over WebSocket, spoken
raw (fake_exec.c, fake_stream.c): the subprotocol chosen from what the
client offers (v5 before v4; none the fake speaks is a 400), the channel
framing both ways, v5's stdin close, a ping answered, the exit Status on
channel 3, and the emulated commands kubectl cp relies on. kubectl's own
use (WebSocket and SPDY, through the proxy) is in
tests/e2e/test_upgrade_kubectl.py.
"""
import base64
import hashlib
import json
import os
import socket
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
import harness  # noqa: E402

KEY = base64.b64encode(b"0123456789abcdef").decode()


def frame(payload, opcode=2):
    """A masked client frame, FIN set."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Conn:
    def __init__(self, port, path, protocols):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.settimeout(10)
        self.s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
                        "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                        "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Protocol: %s\r\n\r\n"
                        % (path, KEY, protocols)).encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            d = self.s.recv(65536)
            if not d:
                break
            self.buf += d
        self.head, _, self.buf = self.buf.partition(b"\r\n\r\n")

    def _need(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d:
                raise EOFError
            self.buf += d

    def message(self):
        """(opcode, payload) of the next server frame (never masked)."""
        self._need(2)
        op, n = self.buf[0] & 0x0f, self.buf[1] & 0x7f
        off = 2
        if n == 126:
            self._need(4)
            n, off = struct.unpack(">H", self.buf[2:4])[0], 4
        elif n == 127:
            self._need(10)
            n, off = struct.unpack(">Q", self.buf[2:10])[0], 10
        self._need(off + n)
        payload, self.buf = self.buf[off:off + n], self.buf[off + n:]
        return op, payload

    def until_close(self):
        """Every data message until the close frame: {channel: bytes}."""
        out = {}
        while True:
            op, p = self.message()
            if op == 8:
                return out
            if op == 2 and p:
                out[p[0]] = out.get(p[0], b"") + p[1:]


class FakeExec(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = harness.fake("--quiet", seed="pods=2")
        cls.port = int(cls.srv.url.rsplit(":", 1)[1])

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def exec(self, command, protocols="v5.channel.k8s.io", stdin=None, sub="exec"):
        q = "&".join("command=" + c.replace(" ", "%20").replace("/", "%2F") for c in command)
        path = "/api/v1/namespaces/ns-1/pods/web-1/%s?%s&stdout=true&stderr=true%s" % (
            sub, q, "&stdin=true" if stdin is not None else "")
        c = Conn(self.port, path, protocols)
        self.addCleanup(c.s.close)
        return c

    def status(self, out):
        return json.loads(out[3])

    def test_protocol_choice(self):
        c = self.exec(["true"], "v4.channel.k8s.io, v5.channel.k8s.io")
        self.assertIn(b"Sec-WebSocket-Protocol: v5.channel.k8s.io", c.head)
        c = self.exec(["true"], "v4.channel.k8s.io")
        self.assertIn(b"Sec-WebSocket-Protocol: v4.channel.k8s.io", c.head)
        self.assertEqual(self.status(c.until_close())["status"], "Success")
        c = self.exec(["true"], "base64.channel.k8s.io")
        self.assertTrue(c.head.startswith(b"HTTP/1.1 400"), c.head)

    def test_stdin_echo_ping_and_v5_close(self):
        c = self.exec(["cat"], stdin=b"")
        accept = base64.b64encode(hashlib.sha1(
            (KEY + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        self.assertIn(b"Sec-WebSocket-Accept: " + accept, c.head)
        c.s.sendall(frame(b"\x00hello "))
        c.s.sendall(frame(b"ping!", opcode=9))
        self.assertEqual(c.message(), (2, b"\x01hello "))
        self.assertEqual(c.message(), (10, b"ping!"))
        c.s.sendall(frame(b"\x04" + b'{"Width":80,"Height":24}'))  # resize: ignored
        c.s.sendall(frame(b"\x00" + b"x" * 70000))
        c.s.sendall(frame(b"\xff\x00"))  # v5: stdin closed
        out = c.until_close()
        self.assertEqual(out[1], b"x" * 70000)
        self.assertEqual(self.status(out), {"metadata": {}, "status": "Success"})

    def test_exit_code_status(self):
        out = self.exec(["sh", "-c", "exit 7"]).until_close()
        st = self.status(out)
        self.assertEqual((st["status"], st["reason"]), ("Failure", "NonZeroExitCode"))
        self.assertEqual(st["details"]["causes"], [{"reason": "ExitCode", "message": "7"}])
        out = self.exec(["no-such-command"]).until_close()
        self.assertEqual(self.status(out)["details"]["causes"][0]["message"], "127")
        self.assertIn(b"no-such-command: command not found", out[2])

    def test_cp_commands(self):
        # test -d: "/tmp" is a directory, a missing path is not
        out = self.exec(["test", "-d", "/tmp"]).until_close()
        self.assertEqual(self.status(out)["status"], "Success")
        out = self.exec(["test", "-d", "/nope"]).until_close()
        self.assertEqual(self.status(out)["details"]["causes"][0]["message"], "1")
        # tar cf - of a missing file: GNU tar's complaint and exit 2
        out = self.exec(["tar", "cf", "-", "/tmp/missing"]).until_close()
        self.assertIn(b"Cannot stat: No such file or directory", out[2])
        self.assertEqual(self.status(out)["details"]["causes"][0]["message"], "2")
        # attach echoes stdin
        c = self.exec([], sub="attach", stdin=b"")
        c.s.sendall(frame(b"\x00attached"))
        self.assertEqual(c.message(), (2, b"\x01attached"))

    def test_without_upgrade_or_pod(self):
        s, _, body = harness.request(
            "GET", self.srv.url + "/api/v1/namespaces/ns-1/pods/web-1/exec?command=true")
        self.assertEqual((s, json.loads(body)["message"]), (400, "Upgrade request required"))
        c = Conn(self.port, "/api/v1/namespaces/ns-1/pods/nope/exec?command=true",
                 "v5.channel.k8s.io")
        self.addCleanup(c.s.close)
        self.assertTrue(c.head.startswith(b"HTTP/1.1 404"), c.head)


if __name__ == "__main__":
    unittest.main()
