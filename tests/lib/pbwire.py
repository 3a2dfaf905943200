"""Kubernetes protobuf on the wire, read just far enough for tests: the
"k8s\\0" envelope (runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind},
2 raw, 3 contentEncoding, 4 contentType}), a List's ListMeta and items,
the frames of a watch stream, and the few fields of ObjectMeta and Status
the tests look at (docs/ARCHITECTURE.md, "Protobuf answers")."""

MAGIC = b"k8s\x00"


def varint(b, i):
    """The varint at b[i:]; returns (value, next index)."""
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """The fields of message b in wire order: (number, wire type, value),
    value an int for varints, bytes for length-delimited ones."""
    out, i = [], 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v = bytes(b[i:i + n])
            i += n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def field(b, num, default=None):
    """The first field num of message b, or default."""
    for n, _, v in fields(b):
        if n == num:
            return v
    return default


def envelope(body):
    """(apiVersion, kind, raw) of a whole body; asserts the magic."""
    assert body[:4] == MAGIC, body[:16]
    f = fields(body[4:])
    tm = field(body[4:], 1, b"")
    raw = field(body[4:], 2, b"")
    # the envelope ends with its two empty strings, as the apiserver's
    assert [(n, v) for n, _, v in f[2:]] == [(3, b""), (4, b"")], f[2:]
    return field(tm, 1, b"").decode(), field(tm, 2, b"").decode(), raw


def list_parts(raw):
    """(ListMeta bytes, [item raw, ...]) of a List message."""
    meta, items = b"", []
    for n, _, v in fields(raw):
        if n == 1:
            meta = v
        elif n == 2:
            items.append(v)
    return meta, items


def list_meta(meta):
    """{resourceVersion, continue, remainingItemCount} of a ListMeta."""
    return {"resourceVersion": field(meta, 2, b"").decode(),
            "continue": field(meta, 3, b"").decode(),
            "remainingItemCount": field(meta, 4)}


def object_meta(raw):
    """(namespace, name, resourceVersion, labels) of an object's raw
    message, from its ObjectMeta (field 1)."""
    m = field(raw, 1, b"")
    labels = {}
    for n, _, v in fields(m):
        if n == 11:
            labels[field(v, 1, b"").decode()] = field(v, 2, b"").decode()
    return (field(m, 3, b"").decode(), field(m, 1, b"").decode(),
            field(m, 6, b"").decode(), labels)


def status(body):
    """{status, message, reason, code} of a whole Status body."""
    av, kind, raw = envelope(body)
    assert (av, kind) == ("v1", "Status"), (av, kind)
    return {"status": field(raw, 2, b"").decode(), "message": field(raw, 3, b"").decode(),
            "reason": field(raw, 4, b"").decode(), "code": field(raw, 6, 0)}


def frames(stream):
    """Split a watch stream into (type, body) pairs; returns (frames, the
    bytes of an unfinished last frame)."""
    out, i = [], 0
    while i + 4 <= len(stream):
        n = int.from_bytes(stream[i:i + 4], "big")
        if i + 4 + n > len(stream):
            break
        ev = stream[i + 4:i + 4 + n]
        ext = field(ev, 2, b"")
        out.append((field(ev, 1, b"").decode(), field(ext, 1, b"")))
        i += 4 + n
    return out, stream[i:]
