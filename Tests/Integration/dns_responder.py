"""A tiny authoritative DNS responder over UDP for the tests: it answers SRV questions from
a table and says NXDOMAIN to everything else (RFC 1035 §4, RFC 2782). Enough for glibc's
res_query, which is how `canvas join` looks up `_xmpp-client._tcp.DOMAIN`."""

import socket
import struct
import threading


def encode_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        out += bytes([len(label)]) + label.encode("ascii")
    return out + b"\0"


def read_name(message, offset):
    labels = []
    while True:
        length = message[offset]
        offset += 1
        if length == 0:
            return ".".join(labels), offset
        if length & 0xC0:
            raise ValueError("compressed names do not occur in questions")
        labels.append(message[offset:offset + length].decode("ascii"))
        offset += length


class DNSResponder:
    """Serves `records`: {lowercased service name: [(priority, weight, port, target)]} on
    UDP `address`:53 (needs root for port 53). `questions` lists what was asked."""

    SRV = 33
    IN = 1

    def __init__(self, address, records, port=53):
        self.records = {name.lower().rstrip("."): entries for name, entries in records.items()}
        self.questions = []
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind((address, port))
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                message, peer = self.socket.recvfrom(512)
            except OSError:
                return
            try:
                self.socket.sendto(self.answer(message), peer)
            except (ValueError, IndexError, struct.error):
                continue  # not a question we can read: no answer, as a server would drop it

    def answer(self, message):
        ident, flags, qdcount = struct.unpack("!HHH", message[:6])
        if qdcount != 1:
            raise ValueError("one question per message")
        name, offset = read_name(message, 12)
        qtype, qclass = struct.unpack("!HH", message[offset:offset + 4])
        question = message[12:offset + 4]
        self.questions.append((name, qtype))
        entries = self.records.get(name.lower()) if qtype == self.SRV and qclass == self.IN else None
        rcode = 0 if entries else 3  # NXDOMAIN
        # QR, AA, the question's RD copied back, RA.
        reply_flags = 0x8000 | 0x0400 | (flags & 0x0100) | 0x0080 | rcode
        answers = b""
        for priority, weight, port, target in entries or []:
            rdata = struct.pack("!HHH", priority, weight, port) + encode_name(target)
            # The owner name points at the question's (offset 12): RFC 1035 §4.1.4.
            answers += struct.pack("!HHHIH", 0xC00C, self.SRV, self.IN, 60, len(rdata)) + rdata
        header = struct.pack("!HHHHHH", ident, reply_flags, 1, len(entries or []), 0, 0)
        return header + question + answers

    def close(self):
        self.socket.close()
