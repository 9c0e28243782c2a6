"""ChaCha20-Poly1305 (RFC 8439) and HKDF-SHA-256 (RFC 5869) in plain Python: an
implementation independent of the node's (OpenSSL's EVP), so that the tests seal and open
LAN datagrams the way the specification says, not the way the node happens to."""

import hashlib
import hmac
import struct


def _rotate(value, count):
    return ((value << count) & 0xFFFFFFFF) | (value >> (32 - count))


def _quarter_round(state, a, b, c, d):
    state[a] = (state[a] + state[b]) & 0xFFFFFFFF
    state[d] = _rotate(state[d] ^ state[a], 16)
    state[c] = (state[c] + state[d]) & 0xFFFFFFFF
    state[b] = _rotate(state[b] ^ state[c], 12)
    state[a] = (state[a] + state[b]) & 0xFFFFFFFF
    state[d] = _rotate(state[d] ^ state[a], 8)
    state[c] = (state[c] + state[d]) & 0xFFFFFFFF
    state[b] = _rotate(state[b] ^ state[c], 7)


def chacha20_block(key, counter, nonce):
    state = list(struct.unpack("<4I", b"expand 32-byte k") + struct.unpack("<8I", key)
                 + (counter,) + struct.unpack("<3I", nonce))
    working = list(state)
    for _ in range(10):
        for a, b, c, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                           (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
            _quarter_round(working, a, b, c, d)
    return struct.pack("<16I", *((w + s) & 0xFFFFFFFF for w, s in zip(working, state)))


def chacha20(key, counter, nonce, data):
    out = bytearray()
    for block in range(0, len(data), 64):
        stream = chacha20_block(key, counter + block // 64, nonce)
        out += bytes(x ^ y for x, y in zip(data[block:block + 64], stream))
    return bytes(out)


def poly1305(key, message):
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    p = (1 << 130) - 5
    accumulator = 0
    for at in range(0, len(message), 16):
        block = message[at:at + 16] + b"\x01"
        accumulator = (accumulator + int.from_bytes(block, "little")) * r % p
    return ((accumulator + s) & ((1 << 128) - 1)).to_bytes(16, "little")


def _mac_data(associated, ciphertext):
    pad = lambda data: b"\x00" * (-len(data) % 16)  # noqa: E731
    return (associated + pad(associated) + ciphertext + pad(ciphertext)
            + struct.pack("<QQ", len(associated), len(ciphertext)))


def seal(key, nonce, plaintext, associated):
    """(ciphertext, tag)."""
    one_time_key = chacha20_block(key, 0, nonce)[:32]
    ciphertext = chacha20(key, 1, nonce, plaintext)
    return ciphertext, poly1305(one_time_key, _mac_data(associated, ciphertext))


def open_(key, nonce, ciphertext, tag, associated):
    """The plaintext, or None when the tag does not verify."""
    one_time_key = chacha20_block(key, 0, nonce)[:32]
    if not hmac.compare_digest(poly1305(one_time_key, _mac_data(associated, ciphertext)), tag):
        return None
    return chacha20(key, 1, nonce, ciphertext)


def hkdf_sha256(ikm, salt, info, length):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def _self_test():
    """RFC 8439 §2.8.2's example, and RFC 5869's first test case."""
    key = bytes(range(0x80, 0xA0))
    nonce = bytes.fromhex("070000004041424344454647")
    associated = bytes.fromhex("50515253c0c1c2c3c4c5c6c7")
    plaintext = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
                 b"sunscreen would be it.")
    ciphertext, tag = seal(key, nonce, plaintext, associated)
    assert tag.hex() == "1ae10b594f09e26a7e902ecbd0600691", tag.hex()
    assert ciphertext[:16].hex() == "d31a8d34648e60db7b86afbc53ef7ec2"
    assert open_(key, nonce, ciphertext, tag, associated) == plaintext
    okm = hkdf_sha256(b"\x0b" * 22, bytes(range(13)), bytes(range(0xF0, 0xFA)), 42)
    assert okm.hex().startswith("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf")


_self_test()
