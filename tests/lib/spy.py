"""spy: a TCP relay in front of a server that records every HTTP request
head passing through it (request line and headers), so a test can see
what an upstream would see. Responses, watch streams included, are
relayed byte for byte.

    spy = Spy("127.0.0.1", fake_port); ...; spy.requests -> [(line, {hdr: val})]

Also usable as a bare listener (target None): it records what arrives
and answers nothing, to show that nothing arrives.
"""
import socket
import threading


def pump(src, dst):
    """Copy src to dst until either end closes, then shut both down (one
    direction of a TCP relay; run one per direction)."""
    try:
        while True:
            d = src.recv(65536)
            if not d:
                break
            dst.sendall(d)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Spy:
    def __init__(self, host=None, port=None):
        self.target = (host, port) if host else None
        self.requests = []          # (request line, {lower-case name: value})
        self.connections = 0
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = "http://127.0.0.1:%d" % self.port
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def heads(self, match=""):
        with self.lock:
            return [r for r in self.requests if match in r[0]]

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _record(self, head):
        lines = head.decode("latin-1").split("\r\n")
        hdrs = {}
        for l in lines[1:]:
            if ":" in l:
                k, v = l.split(":", 1)
                hdrs[k.strip().lower()] = v.strip()
        with self.lock:
            self.requests.append((lines[0], hdrs))
        return hdrs

    def _serve(self, c):
        up = None
        try:
            if self.target:
                up = socket.create_connection(self.target)
                threading.Thread(target=self._pump, args=(up, c), daemon=True).start()
            buf = b""
            while True:
                while b"\r\n\r\n" not in buf:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                head, buf = buf.split(b"\r\n\r\n", 1)
                hdrs = self._record(head)
                n = int(hdrs.get("content-length", "0") or 0)
                while len(buf) < n:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                body, buf = buf[:n], buf[n:]
                if up:
                    up.sendall(head + b"\r\n\r\n" + body)
        except OSError:
            pass
        finally:
            for s in (c, up):
                if s:
                    try:
                        s.close()
                    except OSError:
                        pass

    _pump = staticmethod(pump)
