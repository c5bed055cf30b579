// Drawing on the board (SVG, y flipped: a table point (x, y) mm is drawn at (x, -y)).
// Only what the rulings say is drawn: colours by visible / cover / blocked, marks by ids.
import { s, fmt } from "./dom.js";
import { Placer } from "./labels.js";

export const COLOURS = { clear: "#1b9e3e", cover: "#f28c00", blocked: "#d62020", legal: "#0f8f3c", must: "#e6007e", illegal: "#a0a0a0", close: "#ffd400" };

function layer(board, id) {
  let g = board.querySelector(`#${id}`);
  if (!g) { g = s("g", { id }); board.append(g); }
  return g;
}
// mm per screen pixel of the board as drawn (its longer side fitted to the board's
// shorter one): labels and strokes keep their size in pixels on a phone as on a wide
// screen (the board's size is read once per redraw of the subject)
let boardPx = 900;
function px(sub) { return Math.max(sub.width, sub.depth) / boardPx; }
function measureBoard(board) {
  const r = board.getBoundingClientRect();
  const size = Math.min(r.width, r.height);
  if (size > 50) boardPx = Math.min(1000, Math.max(320, size));
}

export function toTable(board, e) {
  const pt = board.createSVGPoint();
  pt.x = e.clientX; pt.y = e.clientY;
  const p = pt.matrixTransform(board.getScreenCTM().inverse());
  return { x: p.x, y: -p.y };
}

export function drawSubject(board, sub, view, selected) {
  if (!sub || sub.kind !== "table") return;
  measureBoard(board);
  const u = px(sub);
  const m = 20 * u;
  board.setAttribute("viewBox", `${-m} ${-sub.depth - m} ${sub.width + 2 * m} ${sub.depth + 2 * m}`);
  for (const id of ["tablebg", "stand", "terrain", "overlay", "models", "marks", "warned", "labels", "draft", "ruler"]) layer(board, id);
  const bg = layer(board, "tablebg");
  bg.replaceChildren(s("rect", { x: 0, y: -sub.depth, width: sub.width, height: sub.depth, fill: "#f7f3e8", stroke: "#6b6457", "stroke-width": 2 * u }));
  const step = niceStep(sub.unit_mm, sub.width);
  for (let x = step; x < sub.width; x += step) bg.append(s("line", { x1: x, y1: 0, x2: x, y2: -sub.depth, stroke: "#e6dfcf", "stroke-width": u }));
  for (let y = step; y < sub.depth; y += step) bg.append(s("line", { x1: 0, y1: -y, x2: sub.width, y2: -y, stroke: "#e6dfcf", "stroke-width": u }));
  const tg = layer(board, "terrain");
  tg.replaceChildren();
  for (const t of sub.terrain) {
    const g = s("g", { "data-id": t.id, "data-kind": "terrain" });
    g.append(s("path", { d: t.d, class: `piece ${t.sight}${t.id === selected ? " selected" : ""}`, "stroke-width": 1.5 * u, "fill-rule": "evenodd" }, null));
    t.windows.forEach((d, k) => g.append(s("path", { d, class: "window", "stroke-width": u, "data-window": k })));
    g.firstChild.append(s("title", {}, `${t.id}${t.name ? ` (${t.name})` : ""}: ${t.sight}, ${t.size}`));
    tg.append(g);
  }
  const mg = layer(board, "models");
  mg.replaceChildren();
  for (const mo of sub.models) {
    const r = Math.max(mo.r, 3 * u);
    const g = s("g", { "data-id": mo.id, "data-kind": "model", id: `m-${mo.id}` });
    g.append(s("circle", { cx: mo.x, cy: -mo.y, r, fill: sub.sides[mo.side] || "#888", class: `model${mo.id === view.shooter ? " shooter" : ""}`, "stroke-width": (mo.id === view.shooter ? 3 : 1) * u }));
    if (mo.r === 0) g.append(s("circle", { cx: mo.x, cy: -mo.y, r: u, fill: "#111" }));
    g.firstChild.append(s("title", {}, `${mo.id}${mo.name ? ` (${mo.name})` : ""}, ${mo.side}`));
    mg.append(g);
  }
  warned = warnedIds(sub);
  ringWarned(board, sub);
  relabel(board, sub);
}

// One model redrawn where it now stands (a drag step): its base moved and the labels
// placed again, the rest of the board left as it is (drawSubject rebuilds everything).
export function moveModel(board, sub, id) {
  const mo = at(sub, id);
  const g = board.querySelector(`#m-${CSS.escape(id)}`);
  if (!mo || !g) return drawSubject(board, sub, {}, null);
  for (const c of g.querySelectorAll("circle")) { c.setAttribute("cx", mo.x); c.setAttribute("cy", -mo.y); }
  if (warned.has(id)) ringWarned(board, sub);
  relabel(board, sub);
}

// The models a warning of the table is about (the engine's sanity checks: a model inside
// a blocking piece, two bases overlapping...): ringed in amber with a ⚠ by the name, as
// the warnings panel lists them; redrawn with the subject, a drag and each drop.
let warned = new Set();
const WARN_RING = 2.5; // px beyond the base
function warnedIds(sub) {
  const ids = new Set();
  for (const w of sub.warnings || []) for (const id of w.ids || []) if (at(sub, id)) ids.add(id);
  return ids;
}
export function drawWarnings(board, sub) {
  if (!sub || sub.kind !== "table") return;
  warned = warnedIds(sub);
  ringWarned(board, sub);
  relabel(board, sub);
}
function ringWarned(board, sub) {
  const g = layer(board, "warned");
  g.replaceChildren();
  const u = px(sub);
  for (const id of warned) {
    const m = at(sub, id);
    if (m) g.append(s("circle", { cx: m.x, cy: -m.y, r: Math.max(m.r, 3 * u) + WARN_RING * u, class: "warnring", "stroke-width": 2.5 * u, "data-for": id }));
  }
}

// What the answer shown writes on the board, placed with the names (relabel): a cover
// "+n" on its line, a needed score under its target, a close call's "!" by its ring.
// Kept by model id, so the words follow a model dragged before the next answer comes.
let answerLabels = [];
// the models ringed by a close call (their ring's radius): labels keep off the ring
let ringed = new Map();

// Every label of the board (models' names first, then the answer's words, then the
// pieces' names), each where it covers no base and no other label (labels.js), drawn
// above the models and the lines on a halo.
function relabel(board, sub) {
  const g = layer(board, "labels");
  const u = px(sub);
  const m = 20 * u;
  const placer = new Placer({ x0: -m, y0: -sub.depth - m, x1: sub.width + m, y1: m }, u);
  const base = (mo) => Math.max(mo.r, 3 * u) + (warned.has(mo.id) ? (WARN_RING + 1.5) * u : u);
  const reach = (mo) => Math.max(ringed.get(mo.id) || 0, base(mo));
  for (const mo of sub.models) placer.avoidDisc(mo.x, -mo.y, reach(mo));
  for (const mo of sub.models) placer.around(mo.id, mo.x, -mo.y, reach(mo), 11 * u, "above", { "data-label": "model", "data-for": mo.id });
  for (const id of warned) {
    const mo = at(sub, id);
    if (mo) placer.around("⚠", mo.x, -mo.y, reach(mo), 14 * u, "corner", { fill: "#c05000", "font-weight": "bold", "data-label": "warn", "data-for": id });
  }
  for (const l of answerLabels) {
    const attrs = { fill: l.colour, "font-weight": "bold", "data-label": l.kind, "data-for": l.id };
    if (l.b) { // along the line from model a to model b, near its middle
      const a = at(sub, l.a), b = at(sub, l.b);
      if (!a || !b) continue;
      const spots = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74].map((t) => [a.x + (b.x - a.x) * t, -(a.y + (b.y - a.y) * t)]);
      placer.near(l.text, (a.x + b.x) / 2, -(a.y + b.y) / 2, l.size * u, attrs, spots, false);
    } else {
      const mo = at(sub, l.id);
      if (mo) placer.around(l.text, mo.x, -mo.y, reach(mo), l.size * u, l.prefer, attrs);
    }
  }
  for (const t of sub.terrain) placer.near(t.id, t.label[0], -t.label[1], 11 * u, { "data-label": "terrain", "data-for": t.id });
  placer.place(g);
}

function niceStep(unitMm, width) {
  // grid lines every unit (inch, cm...) or a round multiple, about 10 to 40 across
  let step = unitMm;
  while (width / step > 40) step *= step / unitMm >= 5 ? 2 : 5;
  return step;
}

const at = (sub, id) => sub.models.find((m) => m.id === id);
const mark = (board, id, cls) => {
  const el = board.querySelector(`[data-id="${CSS.escape(id)}"] .piece, [data-id="${CSS.escape(id)}"] .model`);
  if (el) el.classList.add(cls);
};

export function drawAnswer(board, sub, answer, view) {
  if (!sub || sub.kind !== "table") return;
  const og = layer(board, "overlay");
  const marks = layer(board, "marks");
  og.replaceChildren();
  marks.replaceChildren();
  for (const el of board.querySelectorAll(".blocker, .coverpiece, .victim, .spilled")) el.classList.remove("blocker", "coverpiece", "victim", "spilled");
  answerLabels = [];
  ringed = new Map();
  if (!answer) return relabel(board, sub);
  const u = px(sub);
  const k = sub.unit_mm && answer.unit ? sub.unit_mm : 1; // answer lengths are in its report unit
  const pt = (p) => [p[0] * k, -p[1] * k];
  for (const r of answer.rulings) {
    if (r.kind === "los") drawLos(board, og, marks, sub, r, u, pt);
    if (r.kind === "targets") drawTargets(og, marks, sub, r, u);
    if (r.kind === "breath" || r.kind === "blast") drawTemplate(board, og, sub, r, u, pt, view);
  }
  relabel(board, sub);
}

function line(g, a, b, colour, u, attrs = {}) {
  g.append(s("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: colour, "stroke-width": 2.5 * u, class: "sightline", ...attrs }));
}

function drawLos(board, og, marks, sub, r, u, pt) {
  const a = at(sub, r.shooter), b = at(sub, r.target);
  if (!a || !b) return;
  const state = !r.visible ? "blocked" : r.cover ? "cover" : "clear";
  const colour = COLOURS[state];
  const dash = state === "blocked" ? { "stroke-dasharray": `${8 * u} ${5 * u}` } : {};
  if (r.witness) {
    line(og, pt(r.witness[0]), pt(r.witness[1]), colour, u, { "data-pair": `${r.shooter}>${r.target}`, "data-state": state });
  } else {
    line(og, [a.x, -a.y], [b.x, -b.y], colour, u, { ...dash, "data-pair": `${r.shooter}>${r.target}`, "data-state": state });
  }
  if (r.window && !r.visible) for (const seg of r.window) line(og, pt(seg[0]), pt(seg[1]), "#7a7a7a", u * 0.4, { "stroke-dasharray": `${3 * u} ${3 * u}` });
  for (const id of r.blockers || []) mark(board, id, "blocker");
  for (const id of r.cover_pieces || []) mark(board, id, "coverpiece");
  if (state === "cover") answerLabels.push({ kind: "cover", id: r.target, a: r.shooter, b: r.target, text: `+${r.cover}`, size: 12, colour });
  if (r.close_call) closeMark(marks, b, u);
}

function closeMark(marks, m, u) {
  const r = Math.max(m.r, 3 * u) + 5 * u;
  marks.append(s("circle", { cx: m.x, cy: -m.y, r, fill: "none", stroke: COLOURS.close, "stroke-width": 3 * u, "stroke-dasharray": `${4 * u} ${2 * u}`, class: "closecall" }));
  ringed.set(m.id, r + 1.5 * u);
  answerLabels.push({ kind: "close", id: m.id, text: "!", size: 13, prefer: "corner", colour: "#111" });
}

function drawTargets(og, marks, sub, r, u) {
  const a = at(sub, r.shooter);
  if (!a) return;
  for (const t of r.targets) {
    const b = at(sub, t.target);
    if (!b) continue;
    const colour = t.closest && t.legal ? COLOURS.must : t.legal ? COLOURS.legal : COLOURS.illegal;
    line(og, [a.x, -a.y], [b.x, -b.y], colour, u, { "data-pair": `${r.shooter}>${t.target}`, "data-state": t.legal ? "legal" : "illegal", ...(t.legal ? {} : { "stroke-dasharray": `${6 * u} ${4 * u}` }) });
    if (t.close_call) closeMark(marks, b, u);
    if (t.need_short) answerLabels.push({ kind: "need", id: t.target, text: t.need_short, size: 12, prefer: "below", colour });
  }
}

function drawTemplate(board, og, sub, r, u, pt, view) {
  const t = r.template;
  if (!t) return;
  if (t.vertices) {
    og.append(s("polygon", { points: t.vertices.map((v) => pt(v).join(",")).join(" "), fill: "#d62020", "fill-opacity": 0.18, stroke: "#d62020", "stroke-width": 2 * u, class: "template" }));
  } else if (t.centre) {
    const c = pt(t.centre);
    og.append(s("circle", { cx: c[0], cy: c[1], r: t.radius * (pt([1, 0])[0]), fill: "#d62020", "fill-opacity": 0.18, stroke: "#d62020", class: "template" }));
  }
  for (const v of r.victims || []) mark(board, v.id, v.in_area ? "victim" : "spilled");
  const shooter = at(sub, r.shooter);
  if (shooter && t.vertices && r.kind === "breath") {
    const apex = pt(t.apex);
    const far = pt([t.apex[0] + Math.cos((t.angle * Math.PI) / 180) * t.length, t.apex[1] + Math.sin((t.angle * Math.PI) / 180) * t.length]);
    const aim = s("circle", { cx: far[0], cy: far[1], r: 7 * u, class: "handle", "data-id": "aim", "data-kind": "handle", "data-handle": "aim" });
    aim.append(s("title", {}, view.texts.handle_aim));
    og.append(aim);
    if (view.apexField) {
      const rim = s("circle", { cx: apex[0], cy: apex[1], r: 6 * u, class: "handle", "data-id": "apex", "data-kind": "handle", "data-handle": "apex" });
      rim.append(s("title", {}, view.texts.handle_apex));
      og.append(rim);
    }
  }
}

export function drawDraft(board, sub, pts) {
  if (!sub || sub.kind !== "table") return;
  const g = layer(board, "draft");
  g.replaceChildren();
  const u = px(sub);
  if (!pts.length) return;
  g.append(s("polyline", { points: pts.map((p) => `${p[0]},${-p[1]}`).join(" "), fill: "none", stroke: "#1f3a93", "stroke-width": 2 * u, "stroke-dasharray": `${4 * u} ${3 * u}` }));
  for (const p of pts) g.append(s("circle", { cx: p[0], cy: -p[1], r: 3 * u, fill: "#1f3a93" }));
}

export function drawRuler(board, sub, msg, texts) {
  const g = layer(board, "ruler");
  g.replaceChildren();
  const a = at(sub, msg.a), b = at(sub, msg.b);
  if (!a || !b) return;
  const u = px(sub);
  g.append(s("line", { x1: a.x, y1: -a.y, x2: b.x, y2: -b.y, stroke: "#1f3a93", "stroke-width": 2 * u, "stroke-dasharray": `${2 * u} ${2 * u}` }));
  g.append(s("text", { x: (a.x + b.x) / 2, y: -(a.y + b.y) / 2 - 6 * u, "font-size": 13 * u, class: "label", "stroke-width": 3 * u, "text-anchor": "middle", fill: "#1f3a93" }, fmt(texts.ruler_board, msg)));
}

export function flash(board, sub, id) {
  const m = at(sub, id);
  if (!m) return;
  const u = px(sub);
  const g = layer(board, "marks");
  const ring = s("circle", { cx: m.x, cy: -m.y, r: Math.max(m.r, 3 * u) + 4 * u, fill: "none", stroke: "#1f3a93", "stroke-width": 3 * u, class: "snapring" });
  g.append(ring);
  setTimeout(() => ring.remove(), 900);
}

// "Where can I stand": the engine's sight map of the selected model on a coarse grid
// (one cell per raster centre), drawn under the terrain; runs of equal cells in a row
// are one rect. Green: seen by no enemy; amber: seen, but in cover from all who see;
// red, darker with more enemies: seen in the open.
export const STAND = { none: "#2e9e44", cover: "#e0a800", seen: "#d62020" };
export function standClass(seen, cover) { return seen === 0 ? "none" : cover > 0 ? "cover" : "seen"; }
export function drawStand(board, sub, msg) {
  if (!sub || sub.kind !== "table") return;
  const g = layer(board, "stand");
  g.replaceChildren();
  g.classList.remove("stale");
  if (!msg) return;
  const p = msg.pitch, cols = msg.columns;
  for (let j = 0; j < msg.rows; j++) {
    let i = 0;
    while (i < cols) {
      const k = j * cols + i;
      const seen = msg.seen[k], cover = msg.cover[k];
      let n = 1;
      while (i + n < cols && msg.seen[k + n] === seen && msg.cover[k + n] === cover) n++;
      const cls = standClass(seen, cover);
      const opacity = cls === "seen" ? Math.min(0.5, 0.14 + 0.07 * seen) : cls === "none" ? 0.3 : 0.32;
      g.append(s("rect", { x: msg.x0 - p / 2 + i * p, y: -(msg.y0 + j * p + p / 2), width: n * p, height: p, fill: STAND[cls], "fill-opacity": opacity, class: `cell ${cls}`, "data-seen": seen, "data-cover": cover }));
      i += n;
    }
  }
}
export function staleStand(board) {
  const g = board.querySelector("#stand");
  if (g && g.childElementCount) g.classList.add("stale");
}
