"""What xmpp_peer.py and original_app.py share: a slixmpp client in one MUC room.

Their connection arguments; a client that verifies TLS against --ca-file (STARTTLS, or
direct TLS with --direct-tls; never plaintext), joins the room on session start (retrying
while the room is locked by the occupant creating it, and unlocking a room it creates as an
instant room unless --no-configure), and on finishing leaves the room and prints a one-line
JSON summary; and `main`, which runs such a client as a script.
"""

import argparse
import asyncio
import json
import logging
import signal
import sys
import time

import slixmpp
from slixmpp.exceptions import PresenceError

log = logging.getLogger("room_client")


def argument_parser(doc):
    """A parser described by the first paragraph of `doc`, with the connection arguments."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--jid", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--room", required=True, help="room JID, e.g. smoke@rooms.localhost")
    p.add_argument("--nick", required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca-file", default=None,
                   help="PEM certificate(s) to trust (the harness's ca.pem; default: the system's CAs)")
    p.add_argument("--direct-tls", action="store_true", help="--port is the direct TLS port, not STARTTLS")
    return p


def add_session_arguments(p, no_configure_help):
    """The arguments `RoomClient` and `main` read besides the connection: --timeout,
    --no-configure and -v."""
    p.add_argument("--timeout", type=float, default=30.0, help="seconds allowed to connect and join")
    p.add_argument("--no-configure", action="store_true", help=no_configure_help)
    p.add_argument("-v", "--verbose", action="count", default=0)


class RoomClient(slixmpp.ClientXMPP):
    """Connects, joins `args.room` as `args.nick` asking for `max_history` messages of
    history (None: no <history/> element, the server's default), and leaves in `finish`.

    Subclasses implement `summary()`, the fields they add to the JSON line."""

    def __init__(self, args, max_history):
        super().__init__(args.jid, args.password)
        self.args = args
        self.room = slixmpp.JID(args.room)
        self.nick = args.nick
        self.max_history = max_history
        if args.ca_file is not None:
            self.ca_certs = args.ca_file
        self.enable_starttls = not args.direct_tls
        self.enable_direct_tls = args.direct_tls
        self.enable_plaintext = False
        for plugin in ("xep_0030", "xep_0004", "xep_0045", "xep_0199", "xep_0203"):
            self.register_plugin(plugin)

        self.joined = asyncio.Event()
        self.session_started = asyncio.Event()
        # Set by SIGTERM (see `main`): the client ends its linger early and reports.
        self.stop_requested = asyncio.Event()
        self.leaving = False
        self.failure = None
        self.created_room = False

        self.add_event_handler("session_start", self.on_session_start)
        self.add_event_handler("failed_auth", self.on_failed_auth)
        self.add_event_handler("disconnected", self.on_disconnected)
        self.add_event_handler("connection_failed", self.on_connection_failed)
        self.add_event_handler("presence_error", self.on_presence_error)

    def on_failed_auth(self, _event):
        self.failure = "authentication failed"
        log.error("authentication failed for %s", self.boundjid.bare)

    def on_presence_error(self, presence):
        # slixmpp only routes join errors that echo <x xmlns='http://jabber.org/protocol/muc'/>;
        # Prosody's (e.g. item-not-found for a locked room) do not, so route them here.
        if presence["from"].bare == self.room.bare and presence.get_plugin("muc_join", check=True) is None:
            self.event("muc::%s::presence-error" % self.room.bare, presence)

    def on_connection_failed(self, error):
        log.warning("connection failed: %s", error)

    def on_disconnected(self, reason):
        self.joined.clear()
        self.session_started.clear()
        if not self.leaving:
            log.warning("disconnected (%s)", reason)

    async def on_session_start(self, _event):
        self.send_presence()
        self.session_started.set()
        try:
            await self.join_room()
        except Exception as error:  # reported by run() through self.failure
            self.failure = f"could not join {self.room}: {error}"
            log.error("%s", self.failure)

    async def join_room(self):
        """Joins, retrying while the room is locked by the occupant that is creating it."""
        deadline = time.monotonic() + self.args.timeout
        locked_since = None
        while True:
            try:
                presence, _subject, _occupants, _history = await self.plugin["xep_0045"].join_muc_wait(
                    self.room, self.nick, timeout=max(1, int(deadline - time.monotonic())),
                    maxstanzas=self.max_history)
                break
            except asyncio.TimeoutError:
                raise RuntimeError("no answer from the room" if locked_since is None else
                                   f"room locked (item-not-found) for {time.monotonic() - locked_since:.1f} s") from None
            except PresenceError as error:
                condition = error.presence["error"]["condition"]
                # A room being created is locked (item-not-found) until its owner configures it.
                if condition == "item-not-found" and time.monotonic() + 0.5 < deadline:
                    if locked_since is None:
                        locked_since = time.monotonic()
                        log.info("room %s is locked; retrying", self.room)
                    await asyncio.sleep(0.3)
                    continue
                raise RuntimeError(f"presence error {condition}" + (
                    "" if locked_since is None else
                    f" (room locked for {time.monotonic() - locked_since:.1f} s)")) from None
        codes = presence["muc"]["status_codes"]
        if 201 in codes:
            self.created_room = True
            if self.args.no_configure:
                log.info("created %s; leaving it locked (--no-configure)", self.room)
            else:
                # Accept the default configuration: an instant room (XEP-0045 §10.1.2).
                form = self.plugin["xep_0004"].make_form(ftype="submit")
                await self.plugin["xep_0045"].set_room_config(self.room, form)
                log.info("created and unlocked %s", self.room)
        log.info("joined %s as %s (status codes %s)", self.room, self.nick, sorted(codes))
        self.joined.set()

    async def connect_and_join(self):
        """Connects and waits until joined: True, or False with `failure` set when the
        connection, authentication or join failed or took longer than --timeout."""
        self.connect(self.args.host, self.args.port)
        deadline = time.monotonic() + self.args.timeout
        while not self.joined.is_set():
            if self.failure:
                return False
            if time.monotonic() > deadline:
                if not self.session_started.is_set():
                    self.failure = "timed out connecting or authenticating (TLS verification failure?)"
                else:
                    self.failure = f"timed out joining {self.room}"
                log.error("%s", self.failure)
                return False
            await asyncio.sleep(0.05)
        return True

    async def linger(self, seconds):
        """Stays in the room `seconds`, or until SIGTERM asks the client to stop."""
        try:
            await asyncio.wait_for(self.stop_requested.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    def finish(self, status):
        """Leaves the room, prints the summary as one JSON line and returns `status`."""
        self.leaving = True
        summary = {"nick": self.nick, "room": str(self.room), "status": status,
                   "failure": self.failure, "created_room": self.created_room, **self.summary()}
        if self.joined.is_set():
            self.plugin["xep_0045"].leave_muc(self.room, self.nick)
        print(json.dumps(summary), flush=True)
        return status


def main(client_class, args, name):
    """Logs to stderr as `name[nick]`, creates `client_class(args)` inside a running loop,
    awaits its `run()` and disconnects; returns the exit status (130 on ^C)."""
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format=f"{name}[{args.nick}] %(levelname)s %(message)s", stream=sys.stderr)
    if args.verbose < 2:
        logging.getLogger("slixmpp").setLevel(logging.ERROR)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    async def session():
        client = client_class(args)
        # SIGTERM ends the linger: the client reports and leaves (a benchmark's stop).
        loop.add_signal_handler(signal.SIGTERM, client.stop_requested.set)
        status = await client.run()
        try:
            await asyncio.wait_for(client.disconnect(wait=2.0), 5)
        except asyncio.TimeoutError:
            pass
        return status

    try:
        status = loop.run_until_complete(session())
    except KeyboardInterrupt:
        status = 130
    # Let slixmpp's own tasks end quietly.
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    return status
