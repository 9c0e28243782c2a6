"""The original iOS app's whiteboard logic as plain Python values, without XMPP.

Mirrors, function by function, the public source of the original app (GitHub
mnckapilan/crdt-canvas, Canvas/): what it does with a message body it receives, and what
it sends when its user draws, undoes or redoes. original_app.py puts it on the wire and
documents each behaviour with the source file and function it comes from; the comments
here name them too. Nothing here is a specification of what the app *should* do: bugs
are kept on purpose (an APPEND ignores `offset`; an unknown `type` is a crash).

Vocabulary: a *change* is the app's `enum Change` (Stroke.swift); `decode(body)` is
`Change.init(from:)` behind `NativeCRDTEngine.applyExternalChanges`; `Engine.handle` is
`NativeCRDTEngine.handleChange`; `App` holds the engine with DrawView's undo and redo
stacks."""

import json
import math
import struct
from dataclasses import dataclass, field

FLOAT_MAX = 3.4028234663852886e38  # Float.greatestFiniteMagnitude


class Crash(Exception):
    """The app would stop here: `fatalError` on an unknown `type`, or a Swift runtime trap
    (an array index out of range, a force-unwrapped nil)."""


class Ignored(Exception):
    """`JSONDecoder` threw; `applyExternalChanges` catches it, prints "WHOOPS" and goes on."""


# -- values -----------------------------------------------------------------------------

class Segment:
    """A visible parameter interval [start, end] of a stroke (Stroke.swift `class
    Segment`). A class, not a value: `handleChange` edits segments in place."""

    def __init__(self, start, end):
        self.start, self.end = float(start), float(end)

    def pair(self):
        return [self.start, self.end]

    def __repr__(self):
        return f"({self.start}, {self.end})"


@dataclass(eq=False)
class Stroke:
    """Stroke.swift `class Stroke`: points (Float pairs), visible segments, shape flag,
    thickness (Float) and colour (UIColor components, fractions)."""

    points: list
    colour: tuple
    is_shape: bool = False
    thickness: float = 1.0
    segments: list = field(default=None)

    def __post_init__(self):
        if self.segments is None:  # `init(points:colour:isShape:thickness:)`
            self.segments = [Segment(0.0, float(len(self.points) - 1))]


@dataclass
class AddStroke:      # `.addStroke(Stroke, String)`, wire type ADD
    stroke: Stroke
    identifier: str


@dataclass
class AddPoints:      # `.addPoint([Point], String)`, wire type APPEND
    points: list
    identifier: str


@dataclass
class RemoveStroke:   # `.removeStroke(String)`, wire type REMOVE_STROKE
    identifier: str


@dataclass
class Erase:          # `.betterPartial(String, Double, Double)`, wire type DELETE
    identifier: str
    lower: float
    upper: float


@dataclass
class Mega:           # `.megaAction([String: Stroke])`, wire type MEGA
    strokes: dict


# -- decoding: Change.init(from:) -------------------------------------------------------

def _reject_constant(name):
    raise ValueError(name)  # JSONSerialization has no NaN or Infinity literals


def _float(value):
    """`decode(Float.self)`: a JSON number (not a boolean) that fits in a Float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Ignored(f"expected a number, got {value!r}")
    try:
        double = float(value)
    except OverflowError:
        raise Ignored(f"number {value} does not fit in Float") from None
    if not abs(double) <= FLOAT_MAX:
        raise Ignored(f"number {value} does not fit in Float")
    return struct.unpack("f", struct.pack("f", double))[0]


def _double(value):
    """`decode(Double.self)` (and CGFloat): a JSON number, not a boolean."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Ignored(f"expected a number, got {value!r}")
    try:
        double = float(value)
    except OverflowError:
        raise Ignored(f"number {value} out of range") from None
    if not math.isfinite(double):
        raise Ignored(f"number {value} out of range")
    return double


def _string(value):
    if not isinstance(value, str):
        raise Ignored(f"expected a string, got {value!r}")
    return value


def _bool(value):
    if not isinstance(value, bool):
        raise Ignored(f"expected a Bool, got {value!r}")
    return value


def _array(value):
    if not isinstance(value, list):
        raise Ignored(f"expected an array, got {value!r}")
    return value


def _object(value):
    if not isinstance(value, dict):
        raise Ignored(f"expected an object, got {value!r}")
    return value


def _field(container, key):
    """`container.decode(_, forKey:)`: a missing key or a null is an error."""
    if key not in container:
        raise Ignored(f"key {key!r} not found")
    if container[key] is None:
        raise Ignored(f"value of {key!r} is null")
    return container[key]


def _point(value):
    """Geometry.swift `Point.init(from:)`: decodes `[Float]`, then reads `value[0]` and
    `value[1]`: an array of fewer than two numbers is an index out of range."""
    if value is None:
        raise Ignored("point is null")
    numbers = [_float(v) for v in _array(value)]
    if len(numbers) < 2:
        raise Crash(f"Point.init(from:): index out of range in {value!r}")
    return [numbers[0], numbers[1]]


def _points(value):
    return [_point(v) for v in _array(value)]


def _colour(value, scale):
    """`decode([CGFloat].self)`, then `components[0]`, `[1]`, `[2]`."""
    components = [_double(v) for v in _array(value)]
    if len(components) < 3:
        raise Crash(f"colour: index out of range in {value!r}")
    return tuple(c / scale for c in components[:3])


def _segment(value):
    container = _object(value)
    return Segment(_double(_field(container, "start")), _double(_field(container, "end")))


def _mega_stroke(value):
    """Stroke.swift `Stroke.init(from:)`, in its order: points, segments, isShape (required),
    thickness, colour."""
    container = _object(value)
    points = _points(_field(container, "points"))
    segments = [_segment(s) for s in _array(_field(container, "segments"))]
    is_shape = _bool(_field(container, "isShape"))
    thickness = _float(_field(container, "thickness"))
    colour = _colour(_field(container, "colour"), 1.0)
    return Stroke(points, colour, is_shape, thickness, segments)


def parse(body):
    """The JSON value of a body, or Ignored (JSONSerialization failed)."""
    try:
        return json.loads(body, parse_constant=_reject_constant)
    except ValueError as error:
        raise Ignored(f"not JSON: {error}") from None


def decode(body):
    """Stroke.swift `Change.init(from:)` on a message body: a change, or Ignored (any
    decoding error), or Crash (`default: fatalError("Fatal error")`, an index out of
    range). Fields are read in the app's order, so which of Crash and Ignored comes first
    is the app's. MEGA strokes are read in the order of the JSON text (the app's
    dictionary order is unspecified)."""
    container = _object(parse(body))
    kind = _string(_field(container, "type"))
    if kind == "APPEND":
        points = _points(_field(container, "points"))
        return AddPoints(points, _string(_field(container, "identifier")))  # no `offset`
    if kind == "ADD":
        start = _point(_field(container, "start"))
        thickness = _float(_field(container, "weight"))
        colour = _colour(_field(container, "colour"), 255.0)
        identifier = _string(_field(container, "identifier"))
        try:
            is_shape = _bool(_field(container, "is_shape"))
        except Ignored:  # `do { ... } catch { // oh no }`
            is_shape = False
        return AddStroke(Stroke([start], colour, is_shape, thickness), identifier)
    if kind == "REMOVE_STROKE":
        return RemoveStroke(_string(_field(container, "identifier")))
    if kind == "DELETE":
        identifier = _string(_field(container, "identifier"))
        lower = _double(_field(container, "start_offset"))
        upper = _double(_field(container, "end_offset"))
        return Erase(identifier, lower, upper)
    if kind == "MEGA":
        data = _object(_field(container, "data"))
        return Mega({_string(key): _mega_stroke(value) for key, value in data.items()})
    raise Crash(f"fatalError: unknown type {kind!r}")


# -- applying: NativeCRDTEngine.handleChange ---------------------------------------------

class Engine:
    """NativeCRDTEngine: `doc` maps stroke identifiers to strokes."""

    def __init__(self):
        self.doc = {}

    def handle(self, change):
        doc = self.doc
        if isinstance(change, AddPoints):
            stroke = doc.get(change.identifier)
            if stroke is None:
                return  # an APPEND for an unknown stroke is dropped
            stroke.points.extend([list(p) for p in change.points])  # at the end: no offset
            if not stroke.segments:
                length = len(stroke.points)
                stroke.segments = [Segment(length, length + len(change.points))]
            else:
                stroke.segments[0].end += len(change.points)  # the FIRST segment grows
        elif isinstance(change, AddStroke):
            doc.setdefault(change.identifier, change.stroke)  # only if absent
        elif isinstance(change, Erase):
            stroke = doc.get(change.identifier)
            if stroke is not None:
                _better_partial(stroke.segments, change.lower, change.upper)
        elif isinstance(change, RemoveStroke):
            doc.pop(change.identifier, None)
        elif isinstance(change, Mega):
            for key, value in change.strokes.items():
                mine = doc.get(key)
                if mine is None:
                    doc[key] = value
                    continue
                if len(value.points) > len(mine.points):  # the longer points array wins
                    mine.points = value.points
                if not value.segments:
                    mine.segments = []
                else:
                    for segment in value.segments:  # note: end as lower, start as upper
                        self.handle(Erase(key, segment.end, segment.start))
        else:
            raise TypeError(f"not a change: {change!r}")

    def view(self):
        """{identifier: number of points} and {identifier: visible segments}."""
        return ({key: len(s.points) for key, s in sorted(self.doc.items())},
                {key: [seg.pair() for seg in s.segments] for key, s in sorted(self.doc.items())})

    def visible(self):
        """{identifier: what is drawn}: the union of the non-empty segments, sorted, so that
        replicas whose segment lists differ only by duplicates compare equal."""
        result = {}
        for key, stroke in sorted(self.doc.items()):
            union = []
            for start, end in sorted(s.pair() for s in stroke.segments if s.start < s.end):
                if union and start <= union[-1][1]:
                    union[-1][1] = max(union[-1][1], end)
                else:
                    union.append([start, end])
            result[key] = union
        return result


def _better_partial(segments, lower, upper):
    """`case let .betterPartial(id, lower, upper)`, step for step: the visible segments
    lose (lower, upper). With lower > upper (MEGA passes each segment reversed) it may
    split a segment into overlapping ones instead."""
    end = len(segments)
    j = 0
    while j < end:
        segment = segments[j]
        if segment.start < lower and lower <= segment.end:
            if segment.start <= upper and upper < segment.end:
                segments.insert(j + 1, Segment(upper, segment.end))
                segment.end = lower
                j += 1
                end += 1
            segment.end = lower
        elif lower <= segment.start and segment.end <= upper:
            del segments[j]
            j -= 1
            end -= 1
        elif segment.start <= upper and upper <= segment.end:
            segment.start = upper
        j += 1


# -- drawing: DrawView.draw(_:) -> Stroke.cgPath -> Stroke.getPoints ----------------------

def drawing_trap(stroke):
    """What stops the app when it draws `stroke` (Stroke.swift `cgPath`), or None.

    `cgPath` skips a segment whose start is past its end and asks `getPoints(start, end)`
    for floor(start) and ceil(end). A shape (`isShape`) is drawn as the lines
    `for i in start...(end - 1)` from points[i] to points[i + 1]: a range whose upper
    bound is below its lower one ("Range requires lowerBound <= upperBound") when the
    segment is one point, as an ADD's is ([(0, 0)]) until its APPEND arrives, and an index
    out of range when the segment ends past the last point. A curve reads points[start]
    first and loops `for i in start...min(end + 1, count - 1)`."""
    count = len(stroke.points)
    for segment in stroke.segments:
        if segment.start > segment.end:
            continue
        start, end = math.floor(segment.start), math.ceil(segment.end)
        if stroke.is_shape:
            if end - 1 < start:
                return f"drawing a shape with the one-point segment {segment}: Range requires lowerBound <= upperBound"
            if start < 0 or end > count - 1:
                return f"drawing a shape's segment {segment} of {count} points: index out of range"
        else:
            if start < 0 or start > min(end + 1, count - 1):
                return f"drawing a curve's segment {segment} of {count} points: index out of range"
    return None


# -- encoding: Change.encode(to:) --------------------------------------------------------

def _number(value):
    """JSONEncoder writes integral values without a fraction (1, not 1.0)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value


def _pair(point):
    return [_number(point[0]), _number(point[1])]


def _encode_stroke(stroke):
    return {"points": [_pair(p) for p in stroke.points],
            "segments": [{"start": _number(s.start), "end": _number(s.end)} for s in stroke.segments],
            "isShape": stroke.is_shape, "thickness": _number(stroke.thickness),
            "colour": [_number(c) for c in stroke.colour]}


def encode(change):
    """Stroke.swift `Change.encode(to:)`: the body the app sends (compact JSON)."""
    if isinstance(change, AddPoints):
        message = {"type": "APPEND", "points": [_pair(p) for p in change.points],
                   "identifier": change.identifier}
    elif isinstance(change, AddStroke):
        stroke = change.stroke
        message = {"type": "ADD", "weight": _number(stroke.thickness), "start": _pair(stroke.points[0]),
                   "is_shape": stroke.is_shape,
                   "colour": [_number(float(math.floor(c * 255))) for c in stroke.colour],
                   "identifier": change.identifier}
    elif isinstance(change, RemoveStroke):
        message = {"type": "REMOVE_STROKE", "identifier": change.identifier}
    elif isinstance(change, Erase):
        message = {"type": "DELETE", "identifier": change.identifier,
                   "start_offset": _number(change.lower), "end_offset": _number(change.upper)}
    elif isinstance(change, Mega):
        message = {"type": "MEGA", "data": {k: _encode_stroke(s) for k, s in change.strokes.items()}}
    else:
        raise TypeError(f"not a change: {change!r}")
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


# -- the app: DrawView and XMPPController around the engine ------------------------------

class App:
    """One device running the app: its engine, its undo and redo stacks, and what it
    counted. Every method returns the bodies the app would send."""

    def __init__(self, device_id):
        self.device_id = device_id  # UIDevice.identifierForVendor: the id of what it sends
        self.engine = Engine()
        self.undo_stack = []
        self.redo_stack = []
        self.crashes = []          # (reason, body)
        self.ignored = []          # (reason, body)
        self.own_skipped = 0
        self.no_body = 0
        self.applied = 0

    # receiving: XMPPController `xmppStream(_:didReceive:)` -> DrawView.incomingChange
    def receive(self, body, element_id=None):
        """One received message: skipped when its id is this device's (own reflections
        of drawn operations), ignored without a body, else decoded and applied. Returns
        'own', 'no_body', 'applied', 'ignored' or 'crash'."""
        if element_id is not None and element_id == self.device_id:
            self.own_skipped += 1
            return "own"
        if body is None:
            self.no_body += 1
            return "no_body"
        try:
            change = decode(body)
        except Crash as crash:
            self.crashes.append((str(crash), body))
            return "crash"
        except Ignored as error:
            self.ignored.append((str(error), body))
            return "ignored"
        self.engine.handle(change)
        self.applied += 1
        # `incomingChange` asks for a redraw (`setNeedsDisplay`); a message that arrives on
        # its own is drawn before the next one: a stroke it leaves undrawable stops the app.
        names = change.strokes if isinstance(change, Mega) else (change.identifier,)
        for name in names:
            stroke = self.engine.doc.get(name)
            trap = stroke and drawing_trap(stroke)
            if trap:
                self.crashes.append((f"{trap} (stroke {name!r})", body))
                return "crash"
        return "applied"

    # drawing: DrawView
    def _local(self, change):
        """DrawView.handleChange: apply (NativeCRDTEngine.addChange), then sendPath."""
        self.engine.handle(change)
        return encode(change)

    def draw(self, identifier, touches, colour, thickness, is_shape=False):
        """touchesBegan (ADD of the first touch; the undo stack gets its inverse, the redo
        stack is cleared), touchesMoved (every 4 new distinct points make one APPEND),
        touchesEnded (points not yet sent are dropped)."""
        start = list(touches[0])
        stroke = Stroke([start], tuple(colour), is_shape, _float(thickness))
        bodies = []
        self.undo_stack.append(RemoveStroke(identifier))
        bodies.append(self._local(AddStroke(stroke, identifier)))
        self.redo_stack = []
        to_write = [start]
        for touch in touches[1:]:
            point = list(touch)
            if to_write and to_write[-1] != point:
                to_write.append(point)
            if len(to_write) >= 5:
                to_write.pop(0)
                bodies.append(self._local(AddPoints(list(to_write), identifier)))
                to_write = [to_write[-1]]
        return bodies

    def erase(self, identifier, lower, upper):
        """The partial eraser (DrawView.partialRemove): one DELETE per curve it touches."""
        return [self._local(Erase(identifier, lower, upper))]

    def _inverse(self, change):
        """DrawView.getInverseChange."""
        if isinstance(change, AddStroke):
            return RemoveStroke(change.identifier)
        if isinstance(change, RemoveStroke):
            stroke = self.engine.doc.get(change.identifier)
            if stroke is None:  # `lines[str]!`
                raise Crash(f"getInverseChange: stroke {change.identifier!r} is gone (force unwrap of nil)")
            return Mega({change.identifier: stroke})
        if isinstance(change, Mega):
            return RemoveStroke(next(iter(change.strokes)))
        return None

    def undo(self):
        """undoLastStroke: REMOVE_STROKE of the last stroke drawn; its redo is a MEGA of
        the stroke as it is now."""
        if not self.undo_stack:
            return []
        change = self.undo_stack.pop()
        self.redo_stack.append(self._inverse(change))
        return [self._local(change)]

    def redo(self):
        """redoLastStroke: the MEGA that re-adds the stroke."""
        if not self.redo_stack:
            return []
        change = self.redo_stack.pop()
        self.undo_stack.append(self._inverse(change))
        return [self._local(change)]

    def everything(self):
        """NativeCRDTEngine.getAllChanges: a MEGA of every stroke with a visible segment,
        sent (not applied) when another occupant's presence arrives."""
        return encode(Mega({k: s for k, s in self.engine.doc.items() if s.segments}))

    def view(self):
        return self.engine.view()
