// The Canvas page (docs/web.md): draws the room its node sends, and sends the node what
// the person here does. No geometry lives here: the node turns pointer samples into
// strokes, recognises shapes and erases; it sends each changed stroke as the path data
// of the SVG export, which Path2D draws as is.
"use strict";

const params = new URLSearchParams(location.search);
const token = params.get("token");
const $ = (id) => document.getElementById(id);
const base = $("base");
const overlay = $("overlay");
const baseContext = base.getContext("2d");
const overlayContext = overlay.getContext("2d");

// MARK: The room as the page holds it

/** Stroke identifiers sort by their UTF-8 bytes (as the node's export draws them): by code point. */
function compareIdentifiers(a, b) {
  const left = Array.from(a), right = Array.from(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const difference = left[i].codePointAt(0) - right[i].codePointAt(0);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

const strokes = new Map(); // id → {colour, weight, shape, paths: [Path2D], dot, box}
let order = []; // ids in drawing order
const myStrokes = new Set(); // strokes drawn from this page (not highlighted)

/** The bounds of a stroke's path data (control points bound a Bézier curve), widened by its half weight. */
function boundsOf(stroke) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const take = (x, y) => { minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y); };
  if (stroke.dot) take(stroke.dot[0], stroke.dot[1]);
  for (const d of stroke.paths) {
    const numbers = d.match(/-?[0-9.]+(e-?[0-9]+)?/g) || [];
    for (let i = 0; i + 1 < numbers.length; i += 2) take(+numbers[i], +numbers[i + 1]);
  }
  const half = stroke.weight / 2;
  return { minX: minX - half, minY: minY - half, maxX: maxX + half, maxY: maxY + half };
}

function insertInOrder(id) {
  let low = 0, high = order.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareIdentifiers(order[middle], id) < 0) low = middle + 1; else high = middle;
  }
  order.splice(low, 0, id);
}

function removeFromOrder(id) {
  let low = 0, high = order.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareIdentifiers(order[middle], id) < 0) low = middle + 1; else high = middle;
  }
  if (order[low] === id) order.splice(low, 1);
}

/** Applies a `strokes` message; returns the world boxes that changed. */
function applyStrokes(message) {
  const changed = [];
  if (message.reset) {
    strokes.clear();
    order = [];
  }
  for (const incoming of message.strokes) {
    const old = strokes.get(incoming.id);
    const stroke = { colour: incoming.colour, weight: incoming.weight, shape: incoming.shape, dot: incoming.dot,
      paths: incoming.paths.map((d) => new Path2D(d)), d: incoming.paths };
    stroke.box = boundsOf({ dot: incoming.dot, paths: incoming.paths, weight: incoming.weight });
    if (old) changed.push(old.box); else insertInOrder(incoming.id);
    strokes.set(incoming.id, stroke);
    changed.push(stroke.box);
    if (!message.reset && !myStrokes.has(incoming.id)) highlight(incoming.id, stroke.box);
  }
  for (const id of message.removed) {
    const old = strokes.get(id);
    if (!old) continue;
    strokes.delete(id);
    removeFromOrder(id);
    changed.push(old.box);
    if (!message.reset && !myStrokes.has(id)) highlight(id, old.box);
  }
  return message.reset ? null : changed;
}

// MARK: The view: world (the room's pixels) to screen

const view = { scale: 1, x: 0, y: 0 };
let pixelRatio = window.devicePixelRatio || 1;
let fullRedraw = true;
let dirtyBoxes = [];

function toWorld(clientX, clientY) {
  return [(clientX - view.x) / view.scale, (clientY - view.y) / view.scale];
}

function resize() {
  pixelRatio = window.devicePixelRatio || 1;
  for (const canvas of [base, overlay]) {
    canvas.width = Math.round(innerWidth * pixelRatio);
    canvas.height = Math.round(innerHeight * pixelRatio);
  }
  fullRedraw = true;
  requestFrame();
}

function applyView(context) {
  context.setTransform(pixelRatio * view.scale, 0, 0, pixelRatio * view.scale, pixelRatio * view.x, pixelRatio * view.y);
}

function drawStroke(context, stroke) {
  if (stroke.dot) {
    context.fillStyle = stroke.colour;
    context.beginPath();
    context.arc(stroke.dot[0], stroke.dot[1], stroke.weight / 2, 0, Math.PI * 2);
    context.fill();
    return;
  }
  context.strokeStyle = stroke.colour;
  context.lineWidth = stroke.weight;
  for (const path of stroke.paths) context.stroke(path);
}

function intersects(a, b) {
  return a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY;
}

/** Redraws the base layer: everything after a reset, a pan or a zoom; otherwise only the
 *  changed area, with the strokes that cross it, in order. */
function drawBase() {
  const context = baseContext;
  context.lineCap = "round";
  context.lineJoin = "round";
  if (fullRedraw) {
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, base.width, base.height);
    applyView(context);
    context.lineCap = "round";
    context.lineJoin = "round";
    const visible = { minX: -view.x / view.scale, minY: -view.y / view.scale,
      maxX: (innerWidth - view.x) / view.scale, maxY: (innerHeight - view.y) / view.scale };
    for (const id of order) {
      const stroke = strokes.get(id);
      if (intersects(stroke.box, visible)) drawStroke(context, stroke);
    }
    fullRedraw = false;
    dirtyBoxes = [];
    stats.fullRedraws++;
    return;
  }
  if (dirtyBoxes.length === 0) return;
  let area = null;
  for (const box of dirtyBoxes) {
    area = area ? { minX: Math.min(area.minX, box.minX), minY: Math.min(area.minY, box.minY),
      maxX: Math.max(area.maxX, box.maxX), maxY: Math.max(area.maxY, box.maxY) } : { ...box };
  }
  dirtyBoxes = [];
  area = { minX: area.minX - 1, minY: area.minY - 1, maxX: area.maxX + 1, maxY: area.maxY + 1 };
  context.save();
  applyView(context);
  context.beginPath();
  context.rect(area.minX, area.minY, area.maxX - area.minX, area.maxY - area.minY);
  context.clip();
  context.clearRect(area.minX, area.minY, area.maxX - area.minX, area.maxY - area.minY);
  context.lineCap = "round";
  context.lineJoin = "round";
  for (const id of order) {
    const stroke = strokes.get(id);
    if (intersects(stroke.box, area)) drawStroke(context, stroke);
  }
  context.restore();
  stats.partialRedraws++;
}

// MARK: The overlay: what is being drawn here, arrivals fading, the eraser

const highlights = new Map(); // stroke id → {box, start}: one per stroke, restarted while it changes
const highlightMillis = 1200;
function highlight(id, box) {
  highlights.set(id, { box, start: performance.now() });
}

let preview = null; // {colour, weight, points} of the stroke being drawn here
const offlineStrokes = []; // whole strokes drawn while the socket is down, shown until sent
let eraserAt = null;

function drawOverlay(now) {
  const context = overlayContext;
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.clearRect(0, 0, overlay.width, overlay.height);
  applyView(context);
  context.lineCap = "round";
  context.lineJoin = "round";
  for (const stroke of offlineStrokes.concat(preview ? [preview] : [])) {
    context.strokeStyle = stroke.colour;
    context.lineWidth = stroke.weight;
    context.beginPath();
    stroke.points.forEach(([x, y], i) => (i === 0 ? context.moveTo(x, y) : context.lineTo(x, y)));
    if (stroke.points.length === 1) context.lineTo(stroke.points[0][0] + 0.01, stroke.points[0][1]);
    context.stroke();
  }
  for (const [id, { box, start }] of highlights) {
    const age = (now - start) / highlightMillis;
    if (age >= 1) { highlights.delete(id); continue; }
    const pad = 6 / view.scale;
    context.fillStyle = `rgba(255, 196, 0, ${0.12 * (1 - age)})`;
    context.strokeStyle = `rgba(230, 160, 0, ${0.8 * (1 - age)})`;
    context.lineWidth = 1.5 / view.scale;
    context.fillRect(box.minX - pad, box.minY - pad, box.maxX - box.minX + 2 * pad, box.maxY - box.minY + 2 * pad);
    context.strokeRect(box.minX - pad, box.minY - pad, box.maxX - box.minX + 2 * pad, box.maxY - box.minY + 2 * pad);
  }
  if (eraserAt && tool === "eraser") {
    context.setTransform(pixelRatio, 0, 0, pixelRatio, 0, 0);
    context.strokeStyle = "rgba(0, 0, 0, 0.6)";
    context.lineWidth = 1;
    context.beginPath();
    context.arc(eraserAt[0], eraserAt[1], eraserRadiusOnScreen(), 0, Math.PI * 2);
    context.stroke();
  }
}

// MARK: Frames

const stats = { frames: 0, fullRedraws: 0, partialRedraws: 0, frameTimes: [], messages: 0 };
let frameRequested = false;
function requestFrame() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(frame);
}

function frame(now) {
  frameRequested = false;
  stats.frames++;
  stats.frameTimes.push(now);
  if (stats.frameTimes.length > 600) stats.frameTimes.splice(0, stats.frameTimes.length - 600);
  flushPointerSamples();
  if (forceFullRedraw) fullRedraw = true;
  drawBase();
  drawOverlay(now);
  if (highlights.size > 0 || preview || measuring) requestFrame();
}

let measuring = false;
let forceFullRedraw = false;

// MARK: The socket

let socket = null;
let online = false;
let retryMillis = 500;
let room = params.get("room");
let lastStatus = null;
const outbox = []; // requests made while the socket is down (whole strokes, erasures, undo/redo)

function socketURL() {
  const query = new URLSearchParams();
  if (room) query.set("room", room);
  if (token) query.set("token", token);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/socket?${query}`;
}

function connect() {
  socket = new WebSocket(socketURL());
  socket.onopen = () => {
    online = true;
    retryMillis = 500;
    while (outbox.length > 0) socket.send(JSON.stringify(outbox.shift()));
    offlineStrokes.length = 0;
    showConnection();
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    online = false;
    socket = null;
    // A stroke in progress goes on offline: what its node did not get yet (from the last
    // point it got) is sent as a stroke of its own once the node is back.
    for (const pen of pens.values()) {
      if (pen.sentDown) pen.offlineFrom = Math.max(0, pen.points.length - pen.unsent.length - 1);
      pen.sentDown = false;
    }
    showConnection();
    setTimeout(connect, retryMillis);
    retryMillis = Math.min(retryMillis * 2, 5000);
  };
}

function send(request) {
  if (online && socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(request));
    return true;
  }
  return false;
}

/** Sends a request, or keeps it for when the node is back. */
function sendOrKeep(request) {
  if (!send(request)) {
    outbox.push(request);
    showConnection();
  }
}

function receive(message) {
  stats.messages++;
  switch (message.type) {
    case "hello": {
      room = message.room;
      const select = $("room");
      select.innerHTML = "";
      for (const name of message.rooms) {
        const option = document.createElement("option");
        option.value = option.textContent = name;
        option.selected = name === room;
        select.appendChild(option);
      }
      select.classList.toggle("single", message.rooms.length < 2);
      const query = new URLSearchParams({ room });
      if (token) query.set("token", token);
      $("download").href = `export.svg?${query}`;
      document.title = `Canvas — ${room}`;
      break;
    }
    case "strokes": {
      const changed = applyStrokes(message);
      if (changed === null) fullRedraw = true; else dirtyBoxes.push(...changed);
      if (message.reset && !fittedOnce) { fittedOnce = true; fit(); }
      requestFrame();
      break;
    }
    case "pen":
      myStrokes.add(message.stroke);
      break;
    case "status":
      lastStatus = message;
      showConnection();
      showMembers();
      break;
    case "error":
      showError(message.message);
      break;
  }
}

let fittedOnce = false;

function showConnection() {
  const element = $("connection");
  let text, kind;
  const waitingHere = outbox.filter((r) => r.action === "draw").length + (preview && !online ? 1 : 0);
  if (!online) {
    kind = "offline";
    text = waitingHere > 0 ? `offline — ${waitingHere} stroke${waitingHere === 1 ? "" : "s"} waiting` : "offline — reconnecting…";
  } else if (lastStatus) {
    const up = lastStatus.transports.filter((t) => t.up);
    const waiting = lastStatus.transports.reduce((sum, t) => Math.max(sum, t.waiting), 0);
    const syncing = lastStatus.transports.reduce((sum, t) => sum + t.syncing, 0);
    if (up.length === 0) { kind = "offline"; text = `node offline from the room — ${waiting} operation${waiting === 1 ? "" : "s"} waiting`; }
    else if (syncing > 0) { kind = "syncing"; text = `syncing with ${syncing} member${syncing === 1 ? "" : "s"}`; }
    else { kind = "online"; text = `online · ${up.map((t) => t.transport).join(" + ")}`; }
  } else {
    kind = "online"; text = "online";
  }
  element.className = kind;
  element.textContent = text;
  element.dataset.state = kind;
}

function showMembers() {
  const list = $("members");
  list.innerHTML = "";
  if (!lastStatus) return;
  const drawing = new Set(lastStatus.drawing);
  for (const transport of lastStatus.transports) {
    for (const member of transport.members) {
      const item = document.createElement("div");
      const name = `${transport.transport}/${member}`;
      item.textContent = (drawing.has(name) ? "✎ " : "• ") + shortName(name);
      item.title = name;
      if (drawing.has(name)) item.className = "drawing";
      list.appendChild(item);
    }
  }
  const banner = $("drawing-banner");
  if (lastStatus.drawing.length > 0) {
    const names = lastStatus.drawing.map(shortName);
    banner.textContent = `✎ ${names.join(", ")} ${names.length === 1 ? "is" : "are"} drawing`;
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
}

/** A member as people read it: `TRANSPORT/MEMBER`, a long node id cut to its first 8 digits. */
function shortName(name) {
  const member = name.replace(/^[^/]*\//, "");
  const nick = member.replace(/^.*\//, ""); // an XMPP occupant: room@service/nick
  return /^[0-9a-f]{16,}$/.test(nick) ? nick.slice(0, 8) : nick;
}

let errorTimer = null;
function showError(text) {
  const element = $("error");
  element.textContent = text;
  element.hidden = false;
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => { element.hidden = true; }, 6000);
  window.canvasPage.errors.push(text);
}

// MARK: Pointers: drawing, erasing, panning, zooming

let tool = "pen";
const pens = new Map(); // pointerId → {pen, points to send, all points} while drawing
const touches = new Map(); // touch pointers down, for pinch and two-finger pan
let pan = null; // {x, y} of the pointer when a pan began
let spaceHeld = false;
let erasing = null; // {last} while the eraser is down
let erasePending = [];

function setTool(name) {
  tool = name;
  for (const other of ["pen", "eraser", "hand"]) {
    const button = $(`tool-${other}`);
    button.classList.toggle("active", other === name);
    button.setAttribute("aria-pressed", String(other === name));
  }
  document.body.className = name === "pen" ? "" : name;
}

const penColour = () => {
  const hex = $("colour").value;
  return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)];
};
const penWeight = () => +$("weight").value;
const eraserRadiusOnScreen = () => +$("eraser-size").value;
const round2 = (v) => Math.round(v * 100) / 100;
const worldPoint = (event) => toWorld(event.clientX, event.clientY).map(round2);

function samplesOf(event) {
  const events = typeof event.getCoalescedEvents === "function" ? event.getCoalescedEvents() : [];
  return (events.length > 0 ? events : [event]).map(worldPoint);
}

overlay.addEventListener("pointerdown", (event) => {
  overlay.setPointerCapture(event.pointerId);
  if (event.pointerType === "touch") {
    touches.set(event.pointerId, [event.clientX, event.clientY]);
    if (touches.size === 2) {
      // A second finger: the first one's stroke was the start of a pinch, not a drawing.
      for (const [id] of pens) cancelPen(id);
      pan = null;
      return;
    }
  }
  if (tool === "hand" || spaceHeld || event.button === 1) {
    pan = { x: event.clientX, y: event.clientY };
    return;
  }
  if (event.button !== 0 && event.pointerType === "mouse") return;
  if (tool === "eraser") {
    const point = worldPoint(event);
    erasing = { last: point };
    erasePending.push(point);
    eraserAt = [event.clientX, event.clientY];
    requestFrame();
    return;
  }
  const point = worldPoint(event);
  const pen = { pen: event.pointerId, colour: penColour(), weight: penWeight(), points: [point], unsent: [], sentDown: false };
  pens.set(event.pointerId, pen);
  preview = { colour: $("colour").value, weight: pen.weight, points: pen.points };
  pen.sentDown = send({ action: "pen-down", pen: pen.pen, points: [point], weight: pen.weight, colour: pen.colour });
  requestFrame();
});

overlay.addEventListener("pointermove", (event) => {
  if (touches.has(event.pointerId)) {
    const previous = touches.get(event.pointerId);
    touches.set(event.pointerId, [event.clientX, event.clientY]);
    if (touches.size === 2) { pinch(event.pointerId, previous); return; }
  }
  if (pan) {
    view.x += event.clientX - pan.x;
    view.y += event.clientY - pan.y;
    pan = { x: event.clientX, y: event.clientY };
    fullRedraw = true;
    requestFrame();
    return;
  }
  eraserAt = [event.clientX, event.clientY];
  if (erasing) {
    erasePending.push(...samplesOf(event));
    requestFrame();
    return;
  }
  const pen = pens.get(event.pointerId);
  if (!pen) { if (tool === "eraser") requestFrame(); return; }
  const samples = samplesOf(event);
  pen.points.push(...samples);
  pen.unsent.push(...samples);
  requestFrame();
});

function endPointer(event, cancelled) {
  touches.delete(event.pointerId);
  if (pan) { pan = null; return; }
  if (erasing) {
    flushPointerSamples();
    erasing = null;
    return;
  }
  const pen = pens.get(event.pointerId);
  if (!pen) return;
  pens.delete(event.pointerId);
  const recognize = $("recognize").checked && !cancelled;
  if (pen.sentDown && online) {
    flushPen(pen);
    send({ action: "pen-up", pen: pen.pen, recognize });
  } else {
    // Drawn (or finished) while the node was away: sent whole when it is back.
    const points = pen.offlineFrom === undefined ? pen.points : pen.points.slice(pen.offlineFrom);
    const stroke = { action: "draw", points, weight: pen.weight, colour: pen.colour, recognize: recognize && pen.offlineFrom === undefined };
    if (!send(stroke)) {
      outbox.push(stroke);
      offlineStrokes.push({ colour: preview.colour, weight: pen.weight, points });
    }
  }
  preview = null;
  showConnection();
  requestFrame();
}
overlay.addEventListener("pointerup", (event) => endPointer(event, false));
overlay.addEventListener("pointercancel", (event) => endPointer(event, true));
overlay.addEventListener("pointerleave", () => { eraserAt = null; requestFrame(); });

function cancelPen(id) {
  const pen = pens.get(id);
  pens.delete(id);
  if (pen && pen.sentDown) { flushPen(pen); send({ action: "pen-up", pen: pen.pen, recognize: false }); send({ action: "undo" }); }
  preview = null;
}

function flushPen(pen) {
  if (pen.unsent.length === 0) return;
  if (pen.sentDown && send({ action: "pen-move", pen: pen.pen, points: pen.unsent })) pen.unsent = [];
}

/** Once a frame: the samples gathered since the last one go to the node in one request. */
function flushPointerSamples() {
  for (const pen of pens.values()) flushPen(pen);
  if (erasePending.length > 0) {
    const radius = round2(eraserRadiusOnScreen() / view.scale);
    sendOrKeep({ action: "erase", points: erasePending, radius });
    erasePending = erasing ? [erasePending[erasePending.length - 1]] : [];
  }
}

function zoomAt(clientX, clientY, factor) {
  const scale = Math.min(40, Math.max(0.02, view.scale * factor));
  const [wx, wy] = toWorld(clientX, clientY);
  view.scale = scale;
  view.x = clientX - wx * scale;
  view.y = clientY - wy * scale;
  fullRedraw = true;
  requestFrame();
}

function pinch(movedId, previous) {
  const [otherId] = [...touches.keys()].filter((id) => id !== movedId);
  const other = touches.get(otherId);
  const now = touches.get(movedId);
  const before = Math.hypot(previous[0] - other[0], previous[1] - other[1]);
  const after = Math.hypot(now[0] - other[0], now[1] - other[1]);
  view.x += (now[0] - previous[0]) / 2;
  view.y += (now[1] - previous[1]) / 2;
  if (before > 0) zoomAt((now[0] + other[0]) / 2, (now[1] + other[1]) / 2, after / before);
  fullRedraw = true;
  requestFrame();
}

overlay.addEventListener("wheel", (event) => {
  event.preventDefault();
  if (event.ctrlKey || event.metaKey || !event.shiftKey) zoomAt(event.clientX, event.clientY, Math.exp(-event.deltaY * 0.0015));
  else { view.x -= event.deltaX || event.deltaY; fullRedraw = true; requestFrame(); }
}, { passive: false });

/** Shows the whole drawing. */
function fit() {
  if (order.length === 0) return;
  let box = null;
  for (const id of order) {
    const b = strokes.get(id).box;
    box = box ? { minX: Math.min(box.minX, b.minX), minY: Math.min(box.minY, b.minY), maxX: Math.max(box.maxX, b.maxX), maxY: Math.max(box.maxY, b.maxY) } : { ...b };
  }
  const top = 70, margin = 24;
  const width = Math.max(box.maxX - box.minX, 1), height = Math.max(box.maxY - box.minY, 1);
  view.scale = Math.min(4, (innerWidth - 2 * margin) / width, (innerHeight - top - 2 * margin) / height);
  view.x = margin - box.minX * view.scale + (innerWidth - 2 * margin - width * view.scale) / 2;
  view.y = top + margin - box.minY * view.scale;
  fullRedraw = true;
  requestFrame();
}

// MARK: Controls

$("tool-pen").onclick = () => setTool("pen");
$("tool-eraser").onclick = () => setTool("eraser");
$("tool-hand").onclick = () => setTool("hand");
$("undo").onclick = () => sendOrKeep({ action: "undo" });
$("redo").onclick = () => sendOrKeep({ action: "redo" });
$("fit").onclick = fit;
$("room").onchange = (event) => {
  const query = new URLSearchParams({ room: event.target.value });
  if (token) query.set("token", token);
  location.search = query.toString();
};
addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.type !== "checkbox" && event.target.type !== "range") return;
  const key = event.key.toLowerCase();
  if ((event.ctrlKey || event.metaKey) && key === "z") { event.preventDefault(); sendOrKeep({ action: event.shiftKey ? "redo" : "undo" }); }
  else if ((event.ctrlKey || event.metaKey) && key === "y") { event.preventDefault(); sendOrKeep({ action: "redo" }); }
  else if (key === " ") { spaceHeld = true; document.body.classList.add("hand"); }
  else if (key === "p") setTool("pen");
  else if (key === "e") setTool("eraser");
  else if (key === "h") setTool("hand");
  else if (key === "f") fit();
});
addEventListener("keyup", (event) => {
  if (event.key === " ") { spaceHeld = false; document.body.classList.toggle("hand", tool === "hand"); }
});
addEventListener("resize", resize);

// What tests and benchmarks read (docs/web.md): the state of the page, and a frame-rate probe.
window.canvasPage = {
  errors: [],
  stats,
  get online() { return online; },
  get strokeCount() { return strokes.size; },
  get status() { return lastStatus; },
  get room() { return room; },
  get outbox() { return outbox.length; },
  get pensDown() { return pens.size; },
  strokeIDs: () => order.slice(),
  isShape: (id) => Boolean(strokes.get(id) && strokes.get(id).shape),
  myStrokes: () => [...myStrokes],
  view,
  fit,
  /** Frames per second over the next `millis`, with the page kept drawing every frame
   *  (`everything`: the whole room redrawn every frame, as a page without partial redraws). */
  measureFrames(millis, everything = false) {
    return new Promise((resolve) => {
      measuring = true;
      forceFullRedraw = everything;
      const start = performance.now(), frames = stats.frames;
      const partial = stats.partialRedraws;
      requestFrame();
      setTimeout(() => {
        measuring = false;
        forceFullRedraw = false;
        const seconds = (performance.now() - start) / 1000;
        resolve({ fps: (stats.frames - frames) / seconds, partialRedraws: stats.partialRedraws - partial, seconds });
      }, millis);
    });
  },
};

resize();
connect();
