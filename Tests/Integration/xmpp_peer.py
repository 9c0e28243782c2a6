#!/usr/bin/env python3
"""A third-party whiteboard peer for integration tests, written with slixmpp.

It behaves like the original iOS app (report Appendix C; protocol/PROTOCOL.md §3): it joins a
MUC room, sends its whole state as one legacy MEGA message on joining, then draws strokes,
one operation per groupchat message body:

    ADD {identifier, weight, colour, start[, is_shape]}
    APPEND {identifier, points}        batches of --batch points (4), no "offset" (legacy)
    DELETE {identifier, start_offset, end_offset}   every --erase-every strokes
    REMOVE_STROKE {identifier}                       every --remove-every strokes

Every groupchat body it receives (room history on joining and live messages, its own
reflected ones included unless --exclude-own) is appended to --record as one line, exactly
as received, once (history repeated after a --reconnect is skipped by its XEP-0359
archive id; a raw line break inside a body, which JSON never needs, becomes a space so that
the file stays NDJSON). After drawing it waits until the room has reflected everything it
sent, then stays --linger seconds (or until --expect bodies from other occupants have
arrived), leaves and prints a one-line JSON summary on stdout.

TLS is always verified against --ca-file (STARTTLS by default, --direct-tls for the direct
TLS port); there is no way to turn verification off.

Exit status: 0 success; 2 could not connect, authenticate or join in --timeout seconds;
3 --expect was not reached before the linger ended; 1 anything else.

Example (after `scripts/prosody-harness start DIR`; `source DIR/env`):

    python3 Tests/Integration/xmpp_peer.py --jid alice@$XMPP_DOMAIN --password alice-pw \\
        --room smoke@$MUC_SERVICE --nick alice --host $XMPP_HOST --port $XMPP_PORT \\
        --ca-file $CA_FILE --strokes 3 --points-per-stroke 9 --record alice.ndjson --linger 2
"""

import asyncio
import json
import logging
import random
import sys
import time

import room_client
from random_walk import random_walk

log = logging.getLogger("xmpp_peer")


def compact(message):
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


class Drawing:
    """Deterministic strokes for one peer: the same arguments draw the same strokes."""

    def __init__(self, prefix, seed, points_per_stroke, width=1024.0, height=768.0):
        self.prefix = prefix
        self.random = random.Random(seed)
        self.points_per_stroke = points_per_stroke
        self.width, self.height = width, height
        self.counter = 0

    def next_identifier(self):
        identifier = f"{self.prefix}_{self.counter}"
        self.counter += 1
        return identifier

    def stroke(self, count=None):
        """`count` points (--points-per-stroke by default) in full double precision."""
        count = self.points_per_stroke if count is None else count
        return random_walk(self.random, count, self.width, self.height)

    def style(self):
        r = self.random
        return r.choice([1, 2, 3, 5, 8]), [r.randrange(256), r.randrange(256), r.randrange(256)]


class Peer(room_client.RoomClient):
    def __init__(self, args):
        # Without maxstanzas Prosody sends a room's default of 20 history messages.
        super().__init__(args, max_history=None if args.history < 0 else args.history)
        self.record = open(args.record, "a", encoding="utf-8") if args.record else None
        self.stats = {
            "received": 0, "history": 0, "own_echoes": 0, "from_others": 0,
            "recorded": 0, "line_breaks_replaced": 0, "reconnects": 0, "duplicates_skipped": 0,
        }
        self.seen_ids = set()
        self.by_nick = {}

        self.add_event_handler("groupchat_message", self.on_groupchat_message)

    # -- events ---------------------------------------------------------------------------

    def on_disconnected(self, reason):
        was_joined = self.joined.is_set()
        super().on_disconnected(reason)
        if self.args.reconnect and was_joined and not self.leaving:
            self.stats["reconnects"] += 1
            log.info("reconnecting")
            self.connect(self.args.host, self.args.port)

    def on_groupchat_message(self, msg):
        if msg["type"] != "groupchat" or msg["from"].bare != self.room.bare:
            return
        body = msg["body"]
        if not body:
            return  # the subject, or a body-less message
        sender = msg["from"].resource
        delay = msg.get_plugin("delay", check=True)
        is_history = delay is not None and delay["from"] == self.room.bare
        # After a reconnect the room's history repeats what we already have: skip those by
        # their archive id (XEP-0359 stanza-id, stamped by the room's MAM archive).
        stanza_id = None
        for element in msg.xml.findall("{urn:xmpp:sid:0}stanza-id"):
            if element.get("by") == self.room.bare:
                stanza_id = element.get("id")
        if stanza_id is not None:
            if stanza_id in self.seen_ids:
                self.stats["duplicates_skipped"] += 1
                return
            self.seen_ids.add(stanza_id)
        own = sender == self.nick
        self.stats["received"] += 1
        if is_history:
            self.stats["history"] += 1
        if own and not is_history:
            self.stats["own_echoes"] += 1
        if not own:
            self.stats["from_others"] += 1
        self.by_nick[sender] = self.by_nick.get(sender, 0) + 1
        if self.record and not (own and self.args.exclude_own):
            line = body
            if "\n" in line or "\r" in line:
                self.stats["line_breaks_replaced"] += 1
                line = line.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
            self.record.write(line + "\n")
            self.record.flush()
            self.stats["recorded"] += 1

    # -- sending --------------------------------------------------------------------------

    async def send_body(self, body):
        while not self.joined.is_set():
            if self.failure:
                raise RuntimeError(self.failure)
            await asyncio.sleep(0.05)
        self.send_message(mto=self.room, mbody=body, mtype="groupchat")
        self.sent += 1
        if self.args.interval > 0:
            await asyncio.sleep(self.args.interval)
        elif self.sent % 50 == 0:
            await asyncio.sleep(0)

    def mega(self, drawing):
        """The app's state before joining: --initial-strokes strokes, some partly erased."""
        data = {}
        for i in range(self.args.initial_strokes):
            identifier = f"{drawing.prefix}_mega_{i}"
            points = drawing.stroke()
            weight, colour = drawing.style()
            n = len(points)
            segments = [{"start": 0, "end": n - 1}]
            if n >= 4 and i % 2 == 1:  # erase the middle third: two visible pieces
                a, b = (n - 1) / 3, 2 * (n - 1) / 3
                segments = [{"start": 0, "end": a}, {"start": b, "end": n - 1}]
            data[identifier] = {
                "points": points,
                "segments": segments,
                "isShape": False,
                "thickness": weight,
                "colour": [c / 255 for c in colour],
            }
        return {"type": "MEGA", "data": data}

    async def draw(self):
        args = self.args
        drawing = Drawing(args.id_prefix or args.nick, f"{args.seed}:{args.nick}", args.points_per_stroke)
        if not args.no_mega:
            await self.send_body(compact(self.mega(drawing)))
        for i in range(args.strokes):
            identifier = drawing.next_identifier()
            shape = args.shape_every > 0 and (i + 1) % args.shape_every == 0
            points = drawing.stroke()
            if shape:  # a recognised rectangle: a closed polyline of 5 points
                (x0, y0), (x1, y1) = points[0], points[-1]
                points = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]
            weight, colour = drawing.style()
            add = {"type": "ADD", "identifier": identifier, "weight": weight,
                   "colour": colour, "start": points[0]}
            if shape:
                add["is_shape"] = True
            await self.send_body(compact(add))
            rest = points[1:]
            for start in range(0, len(rest), args.batch):
                append = {"type": "APPEND", "identifier": identifier, "points": rest[start:start + args.batch]}
                if args.with_offset:
                    append["offset"] = 1 + start
                await self.send_body(compact(append))
            n = len(points)
            if args.remove_every > 0 and (i + 1) % args.remove_every == 0:
                await self.send_body(compact({"type": "REMOVE_STROKE", "identifier": identifier}))
            elif args.erase_every > 0 and (i + 1) % args.erase_every == 0 and n >= 2:
                a = round(drawing.random.uniform(0, (n - 1) / 2), 3)
                b = round(drawing.random.uniform(a, n - 1), 3)
                await self.send_body(compact({"type": "DELETE", "identifier": identifier,
                                              "start_offset": a, "end_offset": b}))

    # -- the session ----------------------------------------------------------------------

    async def run(self):
        args = self.args
        self.sent = 0
        if not await self.connect_and_join():
            return self.finish(2)

        await self.draw()

        # Wait until the room has reflected everything we sent, then linger.
        linger_end = time.monotonic() + args.linger
        while time.monotonic() < linger_end:
            echoes_done = args.exclude_own or self.stats["own_echoes"] >= self.sent
            if args.expect is not None and self.stats["from_others"] >= args.expect and echoes_done:
                break
            await asyncio.sleep(0.05)
        status = 0
        if args.expect is not None and self.stats["from_others"] < args.expect:
            log.error("expected %d bodies from others, got %d", args.expect, self.stats["from_others"])
            status = 3
        return self.finish(status)

    def summary(self):
        return {"sent": getattr(self, "sent", 0), **self.stats, "by_nick": self.by_nick}

    def finish(self, status):
        if self.record:
            self.record.close()
        return super().finish(status)


def parse_args(argv):
    p = room_client.argument_parser(__doc__)
    p.add_argument("--strokes", type=int, default=0)
    p.add_argument("--points-per-stroke", type=int, default=10)
    p.add_argument("--batch", type=int, default=4, help="points per APPEND (the app sent 4)")
    p.add_argument("--with-offset", action="store_true", help="add the offset extension to APPENDs")
    p.add_argument("--erase-every", type=int, default=0, help="DELETE part of every Kth stroke")
    p.add_argument("--remove-every", type=int, default=0, help="REMOVE_STROKE every Kth stroke")
    p.add_argument("--shape-every", type=int, default=0, help="every Kth stroke is a rectangle with is_shape")
    p.add_argument("--initial-strokes", type=int, default=0, help="strokes in the MEGA sent on joining")
    p.add_argument("--no-mega", action="store_true", help="do not send a MEGA on joining")
    p.add_argument("--id-prefix", help="stroke identifier prefix (default: the nick)")
    p.add_argument("--seed", default="canvas", help="seed of the deterministic drawing")
    p.add_argument("--interval", type=float, default=0.0, help="seconds between messages")
    p.add_argument("--history", type=int, default=1000,
                   help="ask for at most N history messages on joining (default 1000; 0: none; "
                   "-1: do not ask, Prosody then sends 20)")
    p.add_argument("--record", help="append every received groupchat body to this NDJSON file")
    p.add_argument("--exclude-own", action="store_true", help="do not record our own reflected messages")
    p.add_argument("--linger", type=float, default=2.0, help="seconds to stay after drawing")
    p.add_argument("--expect", type=int, help="leave early once this many bodies from others arrived; "
                   "exit 3 if they did not")
    p.add_argument("--reconnect", action="store_true", help="reconnect and rejoin when the connection drops")
    room_client.add_session_arguments(p, "when we create the room, leave it locked (tests room locking)")
    args = p.parse_args(argv)
    if args.batch < 1 or args.points_per_stroke < 1:
        p.error("--batch and --points-per-stroke must be at least 1")
    return args


if __name__ == "__main__":
    sys.exit(room_client.main(Peer, parse_args(sys.argv[1:]), "xmpp_peer"))
