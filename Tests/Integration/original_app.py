#!/usr/bin/env python3
"""A stand-in for the original iOS app on XMPP: it receives and draws as the app does.

xmpp_peer.py *sends* like the original app; this client also *receives* like it, so that
a test can tell what a real device in the room would have seen, drawn or crashed on. The
logic is in original_app_model.py (plain values, unit-tested by
test_original_app_model.py); this file puts it on the wire with slixmpp.

Every behaviour comes from the app's public source, GitHub mnckapilan/crdt-canvas (files
under Canvas/), and its XMPP library, robbiehanson/XMPPFramework 4.0.0 (Cartfile.resolved):

Receiving
  - Every message with a <body>, of any type (groupchat, chat, normal, error), from anyone,
    live or room history, goes to the decoder: XMPPController.swift
    `xmppStream(_:didReceive:)` (a stream delegate: it sees every <message> of the stream)
    passes `message.body` to DrawView.swift `incomingChange` ->
    NativeCRDTEngine.swift `applyExternalChanges`. Only the first <body> counts
    (XMPPMessage.m `body`); an empty <body/> is the empty string (then malformed).
  - Messages without a <body> are ignored (`message.body != nil`).
  - Own messages are skipped by their id, not by nick: a message whose `id` is the
    device's `identifierForVendor` UUID is dropped (`didReceive`, "Fixes bug where ...
    devices would read their own messages"). Everything the app draws is sent with that id
    (DrawView.swift `sendPath`), so its reflections are not applied; the MEGA it sends on
    another occupant's presence goes through XMPPRoom `sendMessageWithBody:` with no id,
    so its reflection IS applied (--device-id sets the UUID; history of an earlier session
    with the same UUID is skipped too).
  - The app never queries the archive (no XEP-0313 in the source); it sees the room
    history Prosody sends on joining: `room.join(usingNickname:history: nil)` asks for no
    particular amount (XMPPRoom.m `joinRoomUsingNickname:history:password:` adds no
    <history/>), so the server's default applies.
  - Decoding, Stroke.swift `Change.init(from:)`: an unknown `type` (SYNC_*, "add", any
    other) reaches `default: fatalError("Fatal error")` -- the app crashes. Here it is
    counted in `crashes` with the body, and the stand-in goes on. Any decoding error
    (not JSON, not an object, no `type`, a missing or mistyped field, a number beyond a
    Float) throws, and `applyExternalChanges` catches it (`print("WHOOPS")`): ignored,
    counted in `ignored.malformed`. A `colour` of fewer than 3 numbers or a point of fewer
    than 2 is an index out of range (Stroke.swift `components[2]`, Geometry.swift
    `Point.init(from:)` `value[1]`): a crash too. `is_shape` is read in `do/catch`:
    anything but true/false is false. A MEGA stroke needs `isShape` (Stroke.swift
    `Stroke.init(from:)`); one bad stroke makes the whole MEGA ignored.
  - Applying, NativeCRDTEngine.swift `handleChange`:
      ADD: creates the stroke only if absent (one point, segments [(0, 0)]);
      APPEND: for a known stroke, its points go at the END whatever `offset` says (the
        decoder never reads `offset`), so a repeated APPEND repeats its points; the first
        segment's end grows by the batch length (a stroke with no segment gets one).
        An APPEND for an unknown stroke is dropped, even if its ADD comes later;
      DELETE (`.betterPartial`): the app keeps the VISIBLE intervals (`segments`) and cuts
        (start_offset, end_offset) out of them in place; unknown stroke: nothing;
      REMOVE_STROKE: removes the stroke from the document (a later ADD creates it again);
      MEGA: an unknown stroke is taken whole; for a known one the longer points array
        wins, then an empty `segments` empties the stroke's segments, else every incoming
        segment (s, e) is applied as `.betterPartial(id, e, s)` -- reversed, which mostly
        does nothing and sometimes duplicates a segment (the app's own MEGA reflected to
        it turns [(0, n-1)] into [(0, n-1), (0, n-1)]).
  - Redrawing: `incomingChange` asks for a redraw after every message (`setNeedsDisplay`),
    and a message that arrives on its own is drawn before the next one. Drawing a stroke
    (Stroke.swift `cgPath` -> `getPoints`) can stop the app: a shape is drawn as the lines
    `for i in start...(end - 1)`, a range that traps when a visible segment is one point
    (an ADD's stroke is, with segment (0, 0), until its APPEND arrives), or an index past
    the last point. After each message the strokes it touched are checked
    (original_app_model.py `drawing_trap`) and one that cannot be drawn counts in `crashes`
    with that message's body.
Drawing (DrawView.swift)
  - `touchesBegan`: an ADD of the first touch with `is_shape` false, colour as
    floor(component x 255); identifiers are `UUID().uuidString` (`getIdentifier`).
  - `touchesMoved`: a touch equal to the last is skipped; every 4 new points make one
    APPEND without `offset`; `touchesEnded` drops the 0-3 points not yet sent. So
    --points-per-stroke N touches give a stroke of 1 + 4 x floor((N - 1) / 4) points.
  - One operation per message: each local change is applied, then sent as the body of a
    groupchat message with the device id (`handleChange` -> `sendPath`).
  - Undo (`undoLastStroke`) sends REMOVE_STROKE of the last stroke drawn; its redo
    (`getInverseChange`) is a MEGA holding that stroke as it was, sent by
    `redoLastStroke`. Undoing a stroke someone else removed is a crash (`lines[str]!`).
  - --erase-every: the partial eraser (`partialRemove`), a DELETE of a piece of one
    curve of the stroke.
  - MEGA of the whole state (`NativeCRDTEngine.getAllChanges`: strokes with a visible
    segment) on EVERY available presence of another occupant (XMPPController.swift
    `xmppRoom(_:occupantDidJoin:with:)`; XMPPRoom.m fires it for each available presence
    not its own: each occupant already in the room when the app joins, each later join,
    each presence change), not on its own join.
Not modelled: Bluetooth relaying (`isMaster` is true without Bluetooth peers), shape
recognition, the pixels drawn (only whether a stroke can be drawn, above). Deviation: when the stand-in creates the room it unlocks it
with the instant-room form (the app never does: it has no `xmppRoomDidCreate`), unless
--no-configure.

At the end it prints one JSON line: `strokes` {identifier: points}, `segments`
{identifier: the app's list of visible intervals} and `visible` (their union: two
devices' lists may differ by duplicates that draw the same), `crashes` (count, by type, the first few
bodies), `received` (bodies by `type`, by stanza type, from history), `ignored`
(malformed, no body, own), `sent` by type. Exit status: 0 (crashes are reported, not a
failure: the test decides); 2 could not connect, authenticate or join in --timeout
seconds; 1 anything else.

Example (after `scripts/prosody-harness start DIR`; `source DIR/env`):

    python3 Tests/Integration/original_app.py --jid alice@$XMPP_DOMAIN --password alice-pw \\
        --room smoke@$MUC_SERVICE --nick alice --host $XMPP_HOST --port $XMPP_PORT \\
        --ca-file $CA_FILE --strokes 5 --points-per-stroke 13 --undo-every 2 --linger 3
"""

import asyncio
import json
import logging
import random
import sys
import time
import uuid

from slixmpp.xmlstream.handler import Callback
from slixmpp.xmlstream.matcher import MatchXPath

import room_client
from original_app_model import App, Crash
from random_walk import random_walk

log = logging.getLogger("original_app")

CLIENT = "jabber:client"
MUC_USER = "http://jabber.org/protocol/muc#user"
FIRST_BODIES = 5


def shorten(text, limit=400):
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


class Touches:
    """Deterministic finger paths: random walks in quarter points (exact as Float)."""

    def __init__(self, seed, width=1024.0, height=768.0):
        self.random = random.Random(seed)
        self.width, self.height = width, height

    def identifier(self):
        return str(uuid.UUID(int=self.random.getrandbits(128), version=4)).upper()

    def path(self, count):
        return [[round(x * 4) / 4, round(y * 4) / 4]
                for x, y in random_walk(self.random, count, self.width, self.height)]

    def style(self):
        r = self.random
        return (tuple(r.randrange(256) / 255 for _ in range(3)), r.choice([1, 2, 3, 5, 8]))


class OriginalApp(room_client.RoomClient):
    def __init__(self, args):
        # No <history/> element, as XMPPRoom's `joinRoomUsingNickname:history:` with nil.
        super().__init__(args, max_history=None)
        self.use_message_ids = False  # XMPPFramework adds no id unless asked
        self.app = App(args.device_id)
        self.sent = {}
        self.sent_with_id = 0
        self.megas_on_presence = 0
        self.received_by_type = {}
        self.received_by_stanza = {}
        self.history = 0
        self.crash_types = {}
        self.crash_sources = []  # where each crash of self.app.crashes came from

        self.register_handler(Callback("original app: every message",
                                       MatchXPath(f"{{{CLIENT}}}message"), self.on_message))
        self.register_handler(Callback("original app: every presence",
                                       MatchXPath(f"{{{CLIENT}}}presence"), self.on_presence))

    # -- receiving (XMPPController.didReceive, XMPPRoom presence handling) ------------------

    def on_message(self, msg):
        xml = msg.xml
        stanza_type = xml.get("type") or "normal"
        body_element = xml.find(f"{{{CLIENT}}}body")
        body = None if body_element is None else (body_element.text or "")
        delay = msg.get_plugin("delay", check=True)
        from_history = delay is not None and delay["from"] == self.room.bare
        if body is not None and xml.get("id") != self.app.device_id:
            self.received_by_stanza[stanza_type] = self.received_by_stanza.get(stanza_type, 0) + 1
            self.history += from_history
            kind = self.type_of(body)
            self.received_by_type[kind] = self.received_by_type.get(kind, 0) + 1
        if self.app.receive(body, xml.get("id")) == "crash":
            self.count_crash(self.type_of(body), {"from": str(msg["from"]), "stanza_type": stanza_type,
                                                  "history": from_history})

    def count_crash(self, kind, source):
        self.crash_types[kind] = self.crash_types.get(kind, 0) + 1
        self.crash_sources.append(source)
        log.warning("the app would crash here: %s", self.app.crashes[-1][0])

    @staticmethod
    def type_of(body):
        try:
            value = json.loads(body)
        except ValueError:
            return "(not JSON)"
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            return value["type"]
        return "(no type)"

    def on_presence(self, presence):
        """XMPPRoom.m `xmppStream:didReceivePresence:` -> `occupantDidJoin` for an available
        presence that is not ours -> XMPPController sends a MEGA of everything."""
        if presence["from"].bare != self.room.bare:
            return
        codes = {int(status.get("code", 0)) for x in presence.xml.findall(f"{{{MUC_USER}}}x")
                 for status in x.findall(f"{{{MUC_USER}}}status")}
        mine = 110 in codes or 201 in codes or presence["from"].resource == self.nick
        available = presence.xml.get("type") in (None, "available")
        if mine or not available:
            return
        self.megas_on_presence += 1
        self.send_body(self.app.everything(), with_id=False)

    # -- sending (DrawView.sendPath, XMPPRoom.sendMessageWithBody) --------------------------

    def send_body(self, body, with_id=True):
        message = self.make_message(mto=self.room.bare, mbody=body, mtype="groupchat")
        if with_id:
            message["id"] = self.app.device_id
            self.sent_with_id += 1
        message.send()
        kind = self.type_of(body)
        self.sent[kind] = self.sent.get(kind, 0) + 1

    async def send_all(self, bodies):
        for body in bodies:
            self.send_body(body)
            await asyncio.sleep(self.args.interval)

    async def draw(self):
        args = self.args
        touches = Touches(f"{args.seed}:{args.nick}")
        undos = 0
        for i in range(args.strokes):
            identifier = touches.identifier()
            colour, thickness = touches.style()
            path = touches.path(args.points_per_stroke)
            await self.send_all(self.app.draw(identifier, path, colour, thickness))
            n = len(self.app.engine.doc.get(identifier).points) if identifier in self.app.engine.doc else 0
            if args.erase_every > 0 and (i + 1) % args.erase_every == 0 and n >= 2:
                z = touches.random.randrange(n - 1)
                t1 = round(touches.random.uniform(0, 0.5), 3)
                t2 = round(touches.random.uniform(0.5, 1), 3)
                await self.send_all(self.app.erase(identifier, z + t1, z + t2))
            if args.undo_every > 0 and (i + 1) % args.undo_every == 0:
                try:
                    await self.send_all(self.app.undo())
                    undos += 1
                    if args.redo_every > 0 and undos % args.redo_every == 0:
                        await self.send_all(self.app.redo())
                except Crash as crash:
                    self.app.crashes.append((str(crash), ""))
                    self.count_crash("(undo or redo)", {"local": True})

    # -- the session ------------------------------------------------------------------------

    async def run(self):
        args = self.args
        if args.join_delay > 0:
            await asyncio.sleep(args.join_delay)
        if not await self.connect_and_join():
            return self.finish(2)

        await self.draw()
        # Wait (at most --settle s) until the room has reflected what we drew, then linger.
        settle_end = time.monotonic() + args.settle
        while self.app.own_skipped < self.sent_with_id and time.monotonic() < settle_end:
            await asyncio.sleep(0.05)
        await self.linger(args.linger)
        return self.finish(0)

    def summary(self):
        strokes, segments = self.app.view()
        crashes = self.app.crashes
        return {
            "device_id": self.app.device_id,
            "strokes": strokes, "points": sum(strokes.values()), "segments": segments,
            "visible": self.app.engine.visible(),
            "crashes": {
                "count": len(crashes), "by_type": self.crash_types,
                "first": [dict(reason=reason, body=shorten(body), **source)
                          for (reason, body), source in zip(crashes[:FIRST_BODIES], self.crash_sources)],
            },
            "received": {"by_type": self.received_by_type, "by_stanza_type": self.received_by_stanza,
                         "history": self.history, "applied": self.app.applied},
            "ignored": {"malformed": len(self.app.ignored), "no_body": self.app.no_body,
                        "own": self.app.own_skipped,
                        "first_malformed": [{"reason": r, "body": shorten(b)} for r, b in self.app.ignored[:3]]},
            "sent": self.sent, "megas_on_presence": self.megas_on_presence,
        }


def parse_args(argv):
    p = room_client.argument_parser(__doc__)
    p.add_argument("--device-id", default=None,
                   help="the device's identifierForVendor, the id of what it draws (default: a new UUID)")
    p.add_argument("--strokes", type=int, default=0)
    p.add_argument("--points-per-stroke", type=int, default=13,
                   help="touches per stroke; the app sends 1 + 4 x floor((N - 1) / 4) of them")
    p.add_argument("--erase-every", type=int, default=0, help="erase a piece of every Kth stroke (DELETE)")
    p.add_argument("--undo-every", type=int, default=0, help="undo after every Kth stroke (REMOVE_STROKE)")
    p.add_argument("--redo-every", type=int, default=0, help="redo after every Kth undo (MEGA)")
    p.add_argument("--seed", default="canvas", help="seed of the deterministic drawing")
    p.add_argument("--interval", type=float, default=0.02, help="seconds between messages (a finger is slow)")
    p.add_argument("--join-delay", type=float, default=0.0, help="seconds to wait before connecting")
    p.add_argument("--settle", type=float, default=10.0,
                   help="at most this many seconds to wait for the room to reflect what we drew")
    p.add_argument("--linger", type=float, default=2.0,
                   help="seconds to stay after drawing (SIGTERM ends them early: the report follows)")
    room_client.add_session_arguments(p, "when we create the room, leave it locked, as the app would")
    args = p.parse_args(argv)
    if args.points_per_stroke < 1:
        p.error("--points-per-stroke must be at least 1")
    if args.device_id is None:
        args.device_id = str(uuid.uuid4()).upper()
    return args


if __name__ == "__main__":
    sys.exit(room_client.main(OriginalApp, parse_args(sys.argv[1:]), "original_app"))
