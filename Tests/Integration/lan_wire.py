"""The LAN cluster's datagrams as the tests read and forge them (the wire format:
Sources/LANCluster/Datagram+Codec.swift and docs/lan.md; payloads: PROTOCOL.md §15)."""

import hashlib
import hmac
import struct

MAGIC = b"CVLN"
KIND_DATA = 2
TAG_LENGTH = 32


def name_bytes(name):
    raw = name.encode()
    return bytes([len(raw)]) + raw


def data_datagram(room, sender, incarnation, sequence, data_sequence, payload, key=None, flag=None):
    """A one-fragment data datagram; tagged with HMAC-SHA-256 of `key` when given."""
    flags = (1 if key is not None else 0) if flag is None else flag
    body = (MAGIC + bytes([1, KIND_DATA, flags]) + name_bytes(room) + name_bytes(sender)
            + struct.pack(">QQ", incarnation, sequence)
            + struct.pack(">QHHH", data_sequence, 0, 1, len(payload)) + payload)
    if key is not None:
        body += hmac.new(key, body, hashlib.sha256).digest()
    return body


def parse_header(datagram):
    """(kind, flags, room, sender, incarnation, sequence, offset of the sequence), or None."""
    if len(datagram) < 9 or datagram[:4] != MAGIC:
        return None
    kind, flags = datagram[5], datagram[6]
    at = 7
    room_length = datagram[at]
    room = datagram[at + 1:at + 1 + room_length].decode("utf-8", "replace")
    at += 1 + room_length
    sender_length = datagram[at]
    sender = datagram[at + 1:at + 1 + sender_length].decode("utf-8", "replace")
    at += 1 + sender_length
    incarnation, sequence = struct.unpack(">QQ", datagram[at:at + 16])
    return kind, flags, room, sender, incarnation, sequence, at + 8


def data_chunk(datagram):
    """(sender, chunk) of a data datagram, or None for any other datagram."""
    header = parse_header(datagram)
    if not header or header[0] != KIND_DATA:
        return None
    # After the sequence (u64): data-seq u64, index u16, count u16, length u16, the chunk.
    at = header[6] + 8 + 12
    length = struct.unpack(">H", datagram[at:at + 2])[0]
    return header[3], datagram[at + 2:at + 2 + length]


def is_compact(chunk):
    """Whether a payload is compact (PROTOCOL.md §15): packed (0x00) or a binary operation (1-4)."""
    return chunk[:1] in (b"\x00", b"\x01", b"\x02", b"\x03", b"\x04")


def carries_append(datagram):
    """Whether a data datagram's chunk is an APPEND: JSON, compact (tag 2) or a packed
    payload of several messages."""
    found = data_chunk(datagram)
    return found is not None and (b'"type":"APPEND"' in found[1] or found[1][:1] in (b"\x02", b"\x00"))

