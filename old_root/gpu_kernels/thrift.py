"""Thrift's compact protocol, just enough to read and rewrite a Parquet file footer.

A struct decodes to a list of [field id, type, value]; lists to [element type, [values]]. Values
keep their Thrift types, so encode(decode(data)) == data, and a caller can change a field (a byte
offset, say) in place. formats.py uses it to splice Parquet row groups encoded in parallel into one
file: only the offsets in the footer change.
"""
from __future__ import annotations

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)


class Reader:
    """Compact-protocol values from a bytes object, one after another."""

    def __init__(self, data: bytes, at: int = 0):
        self.data, self.at = data, at

    def byte(self) -> int:
        self.at += 1
        return self.data[self.at - 1]

    def varint(self) -> int:
        shift = out = 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            if b < 0x80:
                return out
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int):
        if kind in (TRUE, FALSE):  # a bool inside a list or map: one byte
            return self.byte() == TRUE
        if kind == BYTE:
            return self.byte()
        if kind in (I16, I32, I64):
            return self.zigzag()
        if kind == DOUBLE:
            self.at += 8
            return self.data[self.at - 8:self.at]
        if kind == BINARY:
            n = self.varint()
            self.at += n
            return self.data[self.at - n:self.at]
        if kind in (LIST, SET):
            head = self.byte()
            size, element = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            return [element, [self.value(element) for _ in range(size)]]
        if kind == MAP:
            size = self.varint()
            if size == 0:
                return [0, 0, []]
            types = self.byte()
            k, v = types >> 4, types & 0x0F
            return [k, v, [(self.value(k), self.value(v)) for _ in range(size)]]
        if kind == STRUCT:
            return self.struct()
        raise ValueError(f"unknown Thrift compact type {kind}")

    def struct(self) -> list:
        fields, last = [], 0
        while True:
            head = self.byte()
            if head == STOP:
                return fields
            kind, delta = head & 0x0F, head >> 4
            last = last + delta if delta else self.zigzag()
            if kind in (TRUE, FALSE):  # a bool field carries its value in its type
                fields.append([last, kind, kind == TRUE])
            else:
                fields.append([last, kind, self.value(kind)])


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        if n < 0x80:
            out.append(n)
            return bytes(out)
        out.append((n & 0x7F) | 0x80)
        n >>= 7


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


def encode_value(kind: int, value) -> bytes:
    """The compact encoding of one value of a type."""
    if kind in (TRUE, FALSE):
        return bytes([TRUE if value else FALSE])
    if kind == BYTE:
        return bytes([value])
    if kind in (I16, I32, I64):
        return _zigzag(value)
    if kind == DOUBLE:
        return bytes(value)
    if kind == BINARY:
        return _varint(len(value)) + bytes(value)
    if kind in (LIST, SET):
        element, items = value
        head = bytes([(len(items) << 4) | element]) if len(items) < 15 else bytes([0xF0 | element]) + _varint(len(items))
        return head + b"".join(encode_value(element, item) for item in items)
    if kind == MAP:
        k, v, items = value
        if not items:
            return b"\x00"
        return _varint(len(items)) + bytes([(k << 4) | v]) + b"".join(
            encode_value(k, a) + encode_value(v, b) for a, b in items)
    if kind == STRUCT:
        return encode_struct(value)
    raise ValueError(f"unknown Thrift compact type {kind}")


def encode_struct(fields: list) -> bytes:
    """The compact encoding of a struct decoded by Reader.struct (fields in increasing id order)."""
    out, last = bytearray(), 0
    for field, kind, value in fields:
        if kind in (TRUE, FALSE):
            kind = TRUE if value else FALSE
        delta = field - last
        out += bytes([(delta << 4) | kind]) if 0 < delta <= 15 else bytes([kind]) + _zigzag(field)
        if kind not in (TRUE, FALSE):
            out += encode_value(kind, value)
        last = field
    out.append(STOP)
    return bytes(out)


def field(fields: list, number: int):
    """The [id, type, value] entry of a field, or None."""
    for entry in fields:
        if entry[0] == number:
            return entry
    return None


def has_field(fields: list, number: int) -> bool:
    """Whether a decoded struct holds field `number`."""
    return any(f[0] == number for f in fields)
