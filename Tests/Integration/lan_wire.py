"""The LAN cluster's datagrams as the tests read and forge them (the wire format:
Sources/LANCluster/Datagram+Codec.swift and docs/lan.md; payloads: PROTOCOL.md §15)."""

import collections
import hashlib
import hmac
import os
import struct

import aead

MAGIC = b"CVLN"
KIND_DATA = 2
TAG_LENGTH = 32
SEALED_VERSION = 3


def name_bytes(name):
    raw = name.encode()
    return bytes([len(raw)]) + raw


def data_datagram(room, sender, incarnation, sequence, data_sequence, payload, key=None, flag=None, old_format=False):
    """A one-fragment data datagram: sealed with `key` when given (version 3), or in the
    earlier format with `old_format` (version 1 with an HMAC-SHA-256 tag of `key`)."""
    tagged = key is not None and old_format
    flags = (1 if tagged else 0) if flag is None else flag
    body = (MAGIC + bytes([1, KIND_DATA, flags]) + name_bytes(room) + name_bytes(sender)
            + struct.pack(">QQ", incarnation, sequence)
            + struct.pack(">QHHH", data_sequence, 0, 1, len(payload)) + payload)
    if tagged:
        return body + hmac.new(key, body, hashlib.sha256).digest()
    if key is not None:
        return seal(body, room, sender, incarnation, sequence, key)
    return body


def sealing_key(key, room):
    """The room's ChaCha20-Poly1305 key, derived from the key file's bytes (HKDF-SHA-256)."""
    return aead.hkdf_sha256(key, b"CVLN sealed datagrams v3", b"room " + room.encode(), 32)


def seal(inner, room, sender, incarnation, sequence, key, nonce=None):
    """`inner` (a version 1 or 2 datagram without a tag) sealed as the node seals it."""
    header = MAGIC + bytes([SEALED_VERSION]) + room_tag(room) + name_bytes(sender) + struct.pack(">QQ", incarnation, sequence)
    nonce = os.urandom(12) if nonce is None else nonce
    ciphertext, tag = aead.seal(sealing_key(key, room), nonce, inner, header)
    return header + nonce + ciphertext + tag


def open_sealed(datagram, room, key):
    """The datagram a sealed one of `room` carries, or None if it does not open with `key`."""
    header = parse_header(datagram)
    if not header or header.version != SEALED_VERSION:
        return None
    at = header.sequence_end
    nonce, ciphertext, tag = datagram[at:at + 12], datagram[at + 12:-16], datagram[-16:]
    return aead.open_(sealing_key(key, room), nonce, ciphertext, tag, datagram[:at])


Header = collections.namedtuple(
    "Header", "version kind flags room sender incarnation sequence sequence_start sequence_end")


def room_tag(room):
    """The 8 bytes that name a room in a compact (version 2) datagram."""
    return hashlib.sha256(b"CVLN room " + room.encode()).digest()[:8]


def read_varint(data, at):
    """(value, offset after it) of an unsigned LEB128."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _read_id(datagram, at):
    form = datagram[at]
    if form == 0:
        return datagram[at + 1:at + 17].hex(), at + 17
    return datagram[at + 1:at + 1 + form].decode("utf-8", "replace"), at + 1 + form


def parse_header(datagram):
    """The header of a datagram of any version, or None. `room` is the name (version 1)
    or the 8-byte tag (versions 2 and 3: compare with `room_tag`). A sealed datagram
    (version 3) shows no kind (None) and no flags (0): they are sealed with the rest."""
    if len(datagram) < 9 or datagram[:4] != MAGIC or datagram[4] not in (1, 2, SEALED_VERSION):
        return None
    if datagram[4] == SEALED_VERSION:
        room = datagram[5:13]
        sender_length = datagram[13]
        sender = datagram[14:14 + sender_length].decode("utf-8", "replace")
        at = 14 + sender_length
        incarnation, sequence = struct.unpack(">QQ", datagram[at:at + 16])
        return Header(SEALED_VERSION, None, 0, room, sender, incarnation, sequence, at + 8, at + 16)
    version, kind, flags = datagram[4], datagram[5], datagram[6]
    at = 7
    if version == 1:
        room_length = datagram[at]
        room = datagram[at + 1:at + 1 + room_length].decode("utf-8", "replace")
        at += 1 + room_length
        sender_length = datagram[at]
        sender = datagram[at + 1:at + 1 + sender_length].decode("utf-8", "replace")
        at += 1 + sender_length
        incarnation, sequence = struct.unpack(">QQ", datagram[at:at + 16])
        return Header(version, kind, flags, room, sender, incarnation, sequence, at + 8, at + 16)
    room = datagram[at:at + 8]
    sender, at = _read_id(datagram, at + 8)
    incarnation = struct.unpack(">Q", datagram[at:at + 8])[0]
    sequence, end = read_varint(datagram, at + 8)
    return Header(version, kind, flags, room, sender, incarnation, sequence, at + 8, end)


def is_for_room(header, room):
    return header.room == (room if header.version == 1 else room_tag(room))


def with_sequence(datagram, sequence):
    """The same datagram (tag untouched) with another sequence number."""
    header = parse_header(datagram)
    number = struct.pack(">Q", sequence) if header.version in (1, SEALED_VERSION) else varint(sequence)
    return datagram[:header.sequence_start] + number + datagram[header.sequence_end:]


def data_chunk(datagram):
    """(sender, chunk) of a data datagram of either version, or None for any other datagram."""
    header = parse_header(datagram)
    if not header or header.kind != KIND_DATA:
        return None
    tagged = TAG_LENGTH if header.flags & 1 else 0
    if header.version == 1:
        # After the sequence: data-seq u64, index u16, count u16, length u16, the chunk.
        at = header.sequence_end + 12
        length = struct.unpack(">H", datagram[at:at + 2])[0]
        return header.sender, datagram[at + 2:at + 2 + length]
    # After the sequence: data-seq, index and count as varints, then the chunk up to the tag.
    at = header.sequence_end
    for _ in range(3):
        _, at = read_varint(datagram, at)
    return header.sender, datagram[at:len(datagram) - tagged]


def is_compact(chunk):
    """Whether a payload is compact (PROTOCOL.md §15): packed (0x00) or a binary operation (1-4)."""
    return chunk[:1] in (b"\x00", b"\x01", b"\x02", b"\x03", b"\x04")


def carries_append(datagram):
    """Whether a data datagram's chunk is an APPEND: JSON, compact (tag 2) or a packed
    payload of several messages."""
    found = data_chunk(datagram)
    return found is not None and (b'"type":"APPEND"' in found[1] or found[1][:1] in (b"\x02", b"\x00"))

