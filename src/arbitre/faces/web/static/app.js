// The table page: draws what the server sends and sends what the player does.
// No rule lives here: every ruling comes from the engine (JSON 2), this only draws it.
import { h, s, fmt, setTexts } from "./dom.js";
import { drawSubject, drawAnswer, toTable, drawDraft, drawRuler, flash, drawStand, staleStand, STAND, moveModel, drawWarnings } from "./draw.js";
import { showAnswer, setPanelTexts, setTests, shotHeading } from "./panel.js";

// -- the language: the one chosen (remembered in the page), else the scenario's `lang`
// (the server says it with the subject), else the browser's, else English ------------
const CATALOGUES = {
  en: (await import("/strings/en.js")).default,
  fr: (await import("/strings/fr.js")).default,
};
const LANG_KEY = "arbitre.lang";
const remembered = (() => { try { return localStorage.getItem(LANG_KEY); } catch { return null; } })();
const fromUrl = new URLSearchParams(location.search).get("lang");
let chosen = [fromUrl, remembered].find((l) => l && CATALOGUES[l]) || null;
const browserLang = navigator.language || "";
let T = CATALOGUES.en;
function speak(lang) {
  T = CATALOGUES[lang] || CATALOGUES.en;
  setTexts(T);
  setPanelTexts(T);
  const pick = document.getElementById("lang");
  if (pick) pick.value = T.lang_code;
  const toggle = document.getElementById("standtoggle");
  if (toggle) toggle.title = T.stand_title;
  const ms = document.getElementById("ms");
  if (ms) ms.title = T.ms_title;
  const more = document.getElementById("more");
  if (more) { more.title = T.more; more.setAttribute("aria-label", T.more); }
}
speak(chosen || (browserLang.toLowerCase().startsWith("fr") ? "fr" : "en"));

const S = {
  subject: null,
  view: { question: null, rules: null, shooter: null, weapon: null, angle: null, apex: null, best: false },
  answer: null,
  tool: "play",
  selected: null,
  ruler: [],
  draft: [],
  seq: 0,
  inflight: null,
  pending: null,
  frame: false,
};
window.arbitre = S; // for tests and the curious

const $ = (id) => document.getElementById(id);
const board = $("board");

// -- the connection -----------------------------------------------------------------------
const query = new URLSearchParams({ browser: browserLang });
if (chosen) query.set("lang", chosen);
const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws?${query}`);
status(T.connecting);
function send(msg) {
  msg.seq = ++S.seq;
  $("ms").textContent = T.working;
  ws.send(JSON.stringify(msg));
  return msg.seq;
}
ws.onclose = () => status(T.disconnected, "error");
ws.onmessage = (event) => {
  let msg;
  try { msg = JSON.parse(event.data); } catch { return status(T.bad_reply, "error"); }
  if (msg.seq != null && msg.seq === S.inflight) { S.inflight = null; flushSoon(); }
  if (msg.ms != null) $("ms").textContent = fmt(T.ms, { ms: msg.ms });
  const on = handlers[msg.type];
  if (on) on(msg);
};
const handlers = {
  subject(msg) {
    if (msg.lang && msg.lang !== T.lang_code) speak(msg.lang);
    S.subject = msg;
    if (S.view.shooter && !modelOf(S.view.shooter) && !(msg.units || []).some((u) => u.id === S.view.shooter)) S.view.shooter = null;
    fillRules();
    render();
    status(S.notice || msg.name || "", "ok");
    S.notice = null;
  },
  moved(msg) {
    if (msg.place != null) { // a unit played onto a place (P3-P4): the subject follows
      S.notice = fmt(T.moved_place, { unit: msg.id, place: msg.place, spent: msg.spent, left: msg.left, exhaustion: msg.exhaustion });
      return;
    }
    // the model being dragged stays under the pointer: an earlier step's reply does not
    // pull it back (a snap does: the drop is over)
    const held = drag && drag.kind === "model" && drag.id === msg.id && !msg.snap;
    const m = held ? null : modelOf(msg.id);
    const moved = m && (m.x !== msg.x || m.y !== msg.y);
    if (m) { m.x = msg.x; m.y = msg.y; }
    if (msg.can_undo !== undefined) {
      S.subject.can_undo = msg.can_undo;
      S.subject.can_redo = msg.can_redo;
      $("undo").disabled = !msg.can_undo;
      $("redo").disabled = !msg.can_redo;
    }
    const said = [];
    if (msg.snap) {
      said.push(msg.snap.window != null ? fmt(T.snapped_window, { id: msg.id, to: msg.snap.to, window: msg.snap.window }) : fmt(T.snapped, { id: msg.id, to: msg.snap.to }));
      flash(board, S.subject, msg.id);
    }
    if (msg.warnings) {
      // a drop: what may now be wrong about this model said at once, above the table
      const mine = msg.warnings.filter((w) => w.ids.includes(msg.id) && !(S.subject.warnings || []).some((o) => o.text === w.text));
      S.subject.warnings = msg.warnings;
      if (mine.length) said.push(`⚠ ${mine.map((w) => w.text).join(" · ")} ${fmt(T.warning_undo, { id: msg.id })}`);
      status(said.join(" — ") || S.subject.name || "", mine.length ? "warn" : "ok"); // a warning said before is gone
      drawWarnings(board, S.subject);
    } else if (said.length) status(said.join(" — "), "ok");
    // a drag step where the page already drew the model: nothing to redraw; a snap or a
    // drop elsewhere: that one model moved
    if (moved) moveModel(board, S.subject, msg.id);
    renderWarnings();
  },
  answer(msg) {
    if (msg.patch !== undefined) { // a move's answer: the difference from the one held
      setTests({ ...S.tests, ...msg.tests });
      S.answer = applyPatch(S.answer, msg.patch);
    } else {
      setTests(msg.tests);
      if (msg.role === "asked") return asked(msg.answer);
      S.answer = msg.answer;
    }
    if (msg.role === "view") S.tests = msg.patch !== undefined ? { ...S.tests, ...msg.tests } : msg.tests || {};
    if (msg.request && msg.request.best && S.answer) {
      const r = S.answer.rulings[0];
      if (r.template) S.view.angle = r.template.angle;
      if (r.best && r.best.apex != null) S.view.apex = r.best.apex;
      S.view.best = false;
    }
    drawAnswer(board, S.subject, S.answer, drawView());
    if (S.subject.kind === "places") markPlaces();
    showAnswer($("panel"), S, { shoot, best, play: playTo });
  },
  stand(msg) {
    if (msg.on !== undefined) return renderStandInfo();
    if (!$("stand").checked || msg.model !== S.view.shooter) return; // asked before a change
    if (msg.unavailable) { S.stand = null; drawStand(board, S.subject, null); return renderStandInfo(msg.unavailable); }
    S.stand = msg;
    drawStand(board, S.subject, msg);
    renderStandInfo();
  },
  measure(msg) {
    drawRuler(board, S.subject, msg, T);
    status(fmt(T.ruler, msg), "ok");
  },
  svg(msg) { download(msg.svg, "table.svg", "image/svg+xml"); },
  saved(msg) {
    download(msg.yaml, msg.name, "application/yaml");
    status(msg.written ? fmt(T.written, { file: msg.written }) : fmt(T.saved, { name: msg.name }), "ok");
  },
  error(msg) {
    if (msg.stand) { S.stand = null; drawStand(board, S.subject, null); renderStandInfo(msg.message); }
    if (msg.ms == null) $("ms").textContent = "–"; // nothing was ruled: no time to show
    status(fmt(T.labelled, { label: T.error, value: msg.message }), "error"); },
  info(msg) { status(T[msg.key] || msg.message); },
  pong() {},
  superseded() {}, // a move the server skipped: a newer one of the same model followed
};

// a patch of arbitre.faces.web.patch applied: {"=": value}, {"o": {key: node}, "x": [keys
// removed]}, {"a": {index: node}}; a new value, the old one untouched
function applyPatch(doc, node) {
  if (node == null) return doc;
  if ("=" in node) return node["="];
  if ("o" in node) {
    const out = { ...doc };
    for (const k of node.x || []) delete out[k];
    for (const [k, sub] of Object.entries(node.o)) out[k] = applyPatch(doc ? doc[k] : undefined, sub);
    return out;
  }
  const out = [...doc];
  for (const [i, sub] of Object.entries(node.a)) out[+i] = applyPatch(out[+i], sub);
  return out;
}

function status(text, kind = "") {
  const el = $("status");
  el.textContent = text;
  el.className = kind;
}

function download(text, name, type) {
  const a = h("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

// -- the view: ruleset, question, shooter --------------------------------------------------
// the questions a click on one model asks: those that need nothing but that model
// (others, as a shot at a target, are asked by buttons)
const WHO = ["shooter", "unit"];
function liveQuestions() {
  return (S.subject.questions || []).filter((q) => q.required.every((f) => WHO.includes(f)) && q.fields.some((f) => WHO.includes(f)));
}
function fillRules() {
  const qs = liveQuestions();
  const names = [...new Set(qs.map((q) => q.rules))];
  const rules = names.includes(S.view.rules) ? S.view.rules : names.includes(S.subject.rules) ? S.subject.rules : names[0];
  $("rules").replaceChildren(...names.map((n) => h("option", { value: n, selected: n === rules }, n)));
  S.view.rules = rules;
  fillQuestions();
}
function fillQuestions() {
  const qs = liveQuestions().filter((q) => q.rules === S.view.rules);
  const keep = qs.some((q) => q.question === S.view.question) ? S.view.question : (qs.find((q) => q.question === "los") || qs[0] || {}).question;
  $("question").replaceChildren(...qs.map((q) => h("option", { value: q.question, selected: q.question === keep }, q.question_title || q.question)));
  S.view.question = keep || null;
  questionTitle();
}
// the question's whole title on the select, which a narrow toolbar may cut
function questionTitle() {
  const q = liveQuestions().find((x) => x.rules === S.view.rules && x.question === S.view.question);
  $("question").title = q ? q.question_title || q.question : "";
}
$("rules").onchange = (e) => { S.view.rules = e.target.value; fillQuestions(); askView(); };
$("question").onchange = (e) => { S.view.question = e.target.value; questionTitle(); askView(); };

function drawView() { return { ...S.view, apexField: questionFields().includes("apex"), texts: T }; }
function questionFields() {
  const q = (S.subject.questions || []).find((x) => x.rules === S.view.rules && x.question === S.view.question);
  return q ? q.fields : [];
}
function askView() {
  const v = S.view;
  const fields = questionFields();
  if (fields.includes("weapon") && v.shooter) {
    const m = modelOf(v.shooter);
    const breath = fields.includes("angle");
    const ws = m ? m.weapons.filter((w) => (breath ? w.breath : !w.breath)) : [];
    if (!ws.some((w) => w.name === v.weapon)) v.weapon = ws.length ? ws[0].name : null;
  }
  if (!fields.includes("angle")) { v.angle = null; v.apex = null; }
  send({ type: "view", ...v });
}
function shoot(target, seed) {
  const q = (S.subject.questions || []).find((x) => x.rules === S.view.rules && x.fields.includes("target") && x.fields.includes("seed"));
  if (!q) return;
  const request = { shooter: S.view.shooter, target, seed };
  if (S.view.weapon) request.weapon = S.view.weapon;
  send({ type: "ask", question: q.question, rules: q.rules, request });
}
function best() { S.view.best = true; askView(); }
function asked(answer) {
  const r = answer.rulings[0];
  S.lastShot = answer;
  showAnswer($("panel"), S, { shoot, best, play: playTo });
  if (S.subject.kind === "places") markPlaces();
  if (r && r.outcome) status(shotHeading(r), "ok");
}

// -- drawing -----------------------------------------------------------------------------
function modelOf(id) { return S.subject && S.subject.models ? S.subject.models.find((m) => m.id === id) : null; }
function render() {
  const places = S.subject.kind === "places";
  board.style.display = places ? "none" : "";
  $("placesmap").hidden = !places;
  $("units").hidden = !places;
  $("build").hidden = places; // nothing to build on a map of places
  $("standtoggle").hidden = places; // nor a sight map to draw
  $("snaptoggle").hidden = places; // nor bases to bring into contact
  $("save").disabled = places;
  $("undo").disabled = !S.subject.can_undo;
  $("redo").disabled = !S.subject.can_redo;
  const sf = $("savefile");
  sf.hidden = !S.subject.file;
  if (S.subject.file) sf.textContent = fmt(T.save_file, { file: S.subject.file.split(/[\\/]/).pop() });
  if (places) renderPlaces(); else drawSubject(board, S.subject, S.view, S.selected);
  if (!places && !(S.stand && S.stand.model === S.view.shooter && $("stand").checked)) drawStand(board, S.subject, null);
  renderStandInfo();
  drawAnswer(board, S.subject, S.answer, drawView());
  showAnswer($("panel"), S, { shoot, best, play: playTo });
  renderTools();
  renderSelection();
  renderWarnings();
}
function renderPlaces() {
  const holder = $("placesmap");
  const doc = new DOMParser().parseFromString(S.subject.svg, "image/svg+xml");
  const svg = document.importNode(doc.documentElement, true);
  if (!S.zoomed) { // the whole map in view, scaled to the board (else its own size, scrolled)
    svg.setAttribute("width", "100%");
    svg.setAttribute("height", "100%");
    svg.setAttribute("preserveAspectRatio", "xMidYMin meet");
  }
  holder.replaceChildren(svg);
  const list = h("div", { class: "tools" }, ...(S.subject.units || []).map((u) => h("button", { class: u.id === S.view.shooter ? "on" : "", "data-unit": u.id, onclick: () => selectUnit(u.id) }, u.id)));
  const zoom = h("button", { id: "zoom", class: S.zoomed ? "on" : "", title: T.zoom_title, onclick: () => { S.zoomed = !S.zoomed; renderPlaces(); } }, S.zoomed ? T.zoom_fit : T.zoom_full);
  const parts = [h("h3", {}, T.units), list, h("div", { class: "tools", style: "margin-top:6px" }, zoom)];
  const q = (S.subject.questions || []).find((x) => x.fields.includes("shooter") && x.fields.includes("target"));
  if (S.view.shooter && q) {
    const others = (S.subject.units || []).filter((u) => u.id !== S.view.shooter);
    parts.push(h("h3", {}, fmt(T.shot_at, { unit: S.view.shooter })),
      h("div", { class: "tools" }, ...others.map((u) => h("button", { class: "shotat", "data-target": u.id, onclick: () => send({ type: "ask", question: q.question, rules: q.rules, request: { shooter: S.view.shooter, target: u.id } }) }, u.id))));
  }
  $("units").replaceChildren(...parts);
  markPlaces();
}
// where the selected unit can end its move (the engine's `move` ruling): each reachable
// card outlined in green with its best way's points and exhaustion, the others dimmed;
// a click on a reachable card (or the unit dragged onto it) plays the move
function reachOf() {
  const a = S.answer;
  const r = a && a.rulings && a.rulings[0];
  if (!r || r.kind !== "move" || r.unit !== S.view.shooter) return null;
  const best = {};
  for (const w of r.ways) if (!best[w.place]) best[w.place] = w;
  return { start: r.start, best };
}
function markPlaces() {
  const svg = $("placesmap").querySelector("svg");
  if (!svg) return;
  for (const el of svg.querySelectorAll(".reachmark")) el.remove();
  const reach = reachOf();
  // the places a shot asked from the panel crosses (P5), outlined on the map too
  const shot = S.lastShot && S.lastShot.rulings && S.lastShot.rulings[0];
  const crossed = new Set((shot && shot.crossed) || []);
  for (const g of svg.querySelectorAll("g.place")) {
    const c = g.querySelector("rect");
    if (c && crossed.has(g.dataset.id)) {
      g.insertBefore(s("rect", { x: +c.getAttribute("x") - 7, y: +c.getAttribute("y") - 7, width: +c.getAttribute("width") + 14, height: +c.getAttribute("height") + 14, rx: 12, class: "reachmark crossed" }), c);
      g.append(s("title", { class: "reachmark" }, fmt(T.crossed, { places: shot.crossed.join(" → ") })));
    }
  }
  for (const g of svg.querySelectorAll("g.place")) {
    const card = g.querySelector("rect");
    const id = g.dataset.id;
    const way = reach && reach.best[id];
    g.classList.toggle("reach", !!way);
    g.classList.toggle("far", !!reach && !way && id !== reach.start);
    g.classList.toggle("start", !!reach && id === reach.start);
    if (!card || !(way || (reach && id === reach.start))) continue;
    const x = +card.getAttribute("x"), y = +card.getAttribute("y"), w = +card.getAttribute("width"), ht = +card.getAttribute("height");
    g.insertBefore(s("rect", { x: x - 3, y: y - 3, width: w + 6, height: ht + 6, rx: 10, class: `reachmark ${way ? "ring" : "here"}` }), card);
    const words = way ? fmt(T.reach_card, { spent: way.spent, left: way.left, exhaustion: way.exhaustion }) : T.reach_here;
    // the tag just under the card: it hides none of the card's own words or units
    g.append(s("rect", { x: x + 4, y: y + ht + 5, width: w - 8, height: 21, rx: 4, class: "reachmark tag" }));
    g.append(s("text", { x: x + w / 2, y: y + ht + 20, "font-size": 12.5, "text-anchor": "middle", class: "reachmark tagtext" }, words));
    if (way) g.append(s("title", { class: "reachmark" }, fmt(T.reach_title, { unit: S.view.shooter, place: id, path: way.path.join(" → "), spent: way.spent, left: way.left, exhaustion: way.exhaustion })));
  }
}
function selectUnit(id) {
  S.view.shooter = S.view.shooter === id ? null : id;
  S.lastShot = null;
  S.answer = null;
  askView();
  renderPlaces();
}
function playTo(place) {
  const reach = reachOf();
  if (!reach || !reach.best[place]) return false;
  send({ type: "move", id: S.view.shooter, place });
  return true;
}
// pointer on the map of places: click a unit to select it, click a reachable card or
// drag the unit onto it to move there
const placesmap = $("placesmap");
let unitDrag = null;
placesmap.addEventListener("pointerdown", (e) => {
  const u = e.target.closest("g.unit");
  if (!u) return;
  placesmap.setPointerCapture(e.pointerId);
  unitDrag = { id: u.dataset.id, el: u, sx: e.clientX, sy: e.clientY, moved: false };
  e.preventDefault();
});
placesmap.addEventListener("pointermove", (e) => {
  if (!unitDrag) return;
  const dx = e.clientX - unitDrag.sx, dy = e.clientY - unitDrag.sy;
  if (!unitDrag.moved && Math.hypot(dx, dy) < 4) return;
  if (!unitDrag.moved && S.view.shooter !== unitDrag.id) selectUnit(unitDrag.id);
  unitDrag.moved = true;
  const el = placesmap.querySelector(`g.unit[data-id="${CSS.escape(unitDrag.id)}"]`);
  const m = el && el.ownerSVGElement.getScreenCTM();
  if (el && m) { el.setAttribute("transform", `translate(${dx / m.a} ${dy / m.d})`); el.classList.add("dragging"); }
});
placesmap.addEventListener("pointerup", (e) => {
  const d = unitDrag;
  unitDrag = null;
  if (!d) return;
  if (!d.moved) return selectUnit(d.id);
  const under = document.elementsFromPoint(e.clientX, e.clientY).filter((el) => el.closest && !el.closest("g.unit.dragging")).map((el) => el.closest("g.place")).find(Boolean);
  if (!(under && playTo(under.dataset.id))) renderPlaces(); // dropped elsewhere: back home
});
placesmap.addEventListener("click", (e) => {
  if (e.target.closest("g.unit")) return;
  const card = e.target.closest("g.place");
  if (card && S.view.shooter) playTo(card.dataset.id);
});
// the table's warnings (the engine's sanity checks), above the rulings: each one's words,
// the models it is about marked ⚠ on the board
function renderWarnings() {
  const w = (S.subject && S.subject.kind === "table" && S.subject.warnings) || [];
  const box = $("warnings");
  box.hidden = !w.length;
  box.replaceChildren(...(w.length ? [h("h3", {}, `⚠ ${fmt(T.warnings_n, { n: w.length })}`), ...w.map((x) => h("div", { class: "warn", title: x.where, "data-ids": x.ids.join(" ") }, x.text)), h("div", { class: "hint" }, T.warnings_hint)] : []));
}

// -- where can I stand: the overlay of the selected model (computed by the server after
// each change, off the drag's path) and its legend -----------------------------------------
function renderStandInfo(problem = null) {
  const box = $("standinfo");
  const on = $("stand").checked && S.subject && S.subject.kind === "table";
  box.hidden = !on;
  if (!on) return;
  const who = S.view.shooter;
  const st = S.stand && S.stand.model === who ? S.stand : null;
  const item = (cls, text) => h("span", {}, h("span", { class: "sw cell", style: `background:${STAND[cls]};opacity:.6` }), text);
  const head = !who ? T.stand_pick : st ? fmt(T.stand_for, { model: who, rules: st.rules, pitch: st.pitch, ms: Math.round(st.compute_ms) }) : fmt(T.stand_working, { model: who });
  box.replaceChildren(
    h("h3", {}, T.stand),
    h("div", { class: "hint", id: "stand-state" }, problem || head),
    h("div", { class: "legend" }, item("none", T.stand_none), item("cover", T.stand_cover), item("seen", T.stand_seen)),
    st ? h("div", { class: "hint" }, st.method) : null);
}
$("stand").onchange = (e) => {
  if (!e.target.checked) { S.stand = null; drawStand(board, S.subject, null); }
  send({ type: "stand", on: e.target.checked });
  renderStandInfo();
};

// -- tools: play, ruler, build -----------------------------------------------------------
const TOOLS = ["play", "ruler", "rect", "circle", "polygon", "wall", "model", "delete"];
function renderTools() {
  if (S.subject.kind === "places") { $("tools").replaceChildren(); return; }
  $("tools").replaceChildren(...TOOLS.map((t) => h("button", { id: `tool-${t}`, class: S.tool === t ? "on" : "", title: T[`tool_${t}`], onclick: () => { S.tool = t; S.draft = []; S.ruler = []; drawDraft(board, S.subject, S.draft); renderTools(); } }, T[`tool_${t}`].split(/[:(]/)[0].trim())));
  const opts = [];
  const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);
  if (["rect", "circle", "polygon", "wall"].includes(S.tool)) {
    opts.push(field(T.sight, h("select", { id: "opt-sight" }, h("option", { value: "blocks" }, T.sight_blocks), h("option", { value: "cover" }, T.sight_cover))));
  }
  if (S.tool === "wall") {
    opts.push(field(`${T.thickness} (${unitName(S.subject.unit)})`, h("input", { id: "opt-thickness", value: fmtNum(4 / S.subject.unit_mm) })));
    opts.push(field(T.windows, h("input", { id: "opt-windows", placeholder: "2-3.5, 8-9", value: "" })));
  }
  if (S.tool === "polygon" || S.tool === "wall") opts.push(h("button", { id: "finish", onclick: finishDraft }, T.finish));
  if (S.tool === "model") {
    const sides = Object.keys(S.subject.sides || {});
    opts.push(field(T.side, h("input", { id: "opt-side", value: sides[0] || "red", list: "sides" })), h("datalist", { id: "sides" }, ...sides.map((s) => h("option", { value: s }))));
    opts.push(field(`${T.base} (${unitName(S.subject.unit)})`, h("input", { id: "opt-base", value: fmtNum(25 / S.subject.unit_mm) })));
    opts.push(field(T.size, h("select", { id: "opt-size" }, ...["small", "medium", "large", "huge"].map((s) => h("option", { value: s, selected: s === "medium" }, s)))));
    opts.push(field(T.stats, h("input", { id: "opt-stats", value: "" })));
    opts.push(field(T.weapons, h("input", { id: "opt-weapons", value: "" })));
  }
  $("toolopts").replaceChildren(...opts);
}
const fmtNum = (v) => String(Math.round(v * 1000) / 1000);
const unitName = (u) => T[`unit_${u}`] || u;
const val = (id) => ($(id) ? $(id).value : "");
function unitNum(id, fallback) {
  const v = parseFloat(val(id));
  return Number.isFinite(v) ? v * S.subject.unit_mm : fallback;
}
function renderSelection() {
  const box = $("selection");
  const id = S.selected || S.view.shooter; // a piece clicked, else the model looked at
  if (!id || S.subject.kind === "places") { box.replaceChildren(); return; }
  const update = (item) => send({ type: "edit", op: "update", id, item });
  const title = h("h3", {}, fmt(T.labelled, { label: T.selected, value: id }));
  const model = S.selected ? null : modelOf(id);
  if (model) { // M5: the building it stands in (a piece marked as a building)
    const buildings = (S.subject.terrain || []).filter((t) => t.building);
    box.replaceChildren(title, h("label", { class: "field" }, h("span", {}, T.inside),
      h("select", { id: "sel-inside", onchange: (e) => update({ inside: e.target.value || null }) },
        h("option", { value: "" }, buildings.length ? T.inside_none : T.inside_no_building),
        ...buildings.map((t) => h("option", { value: t.id, selected: model.inside === t.id }, t.name || t.id)))));
    return;
  }
  const piece = (S.subject.terrain || []).find((t) => t.id === id);
  const edit = (extra) => send({ type: "edit", op: "transform", id, ...extra });
  box.replaceChildren(
    title,
    h("div", { class: "tools" },
      h("button", { onclick: () => edit({ angle: 15 }) }, T.rotate_left),
      h("button", { onclick: () => edit({ angle: -15 }) }, T.rotate_right),
      h("button", { onclick: () => edit({ scale: 1.1 }) }, T.grow),
      h("button", { onclick: () => edit({ scale: 1 / 1.1 }) }, T.shrink),
      h("button", { id: "delete-selected", onclick: () => { send({ type: "edit", op: "delete", id }); S.selected = null; } }, T.delete)),
    piece && piece.kind !== "wall" ? h("label", { class: "field" }, // models may stand inside it (M5)
      h("input", { type: "checkbox", id: "sel-building", checked: !!piece.building, onchange: (e) => update({ building: e.target.checked }) }),
      h("span", {}, T.building)) : null);
}
function finishDraft() {
  const pts = S.draft;
  if (S.tool === "polygon" && pts.length >= 3) addTerrain({ polygon: pts });
  if (S.tool === "wall" && pts.length >= 2) {
    const windows = val("opt-windows").split(",").map((s) => s.trim()).filter(Boolean).map((s) => s.split("-").map((x) => parseFloat(x) * S.subject.unit_mm)).filter((w) => w.length === 2 && w.every(Number.isFinite)).map(([a, b]) => ({ from: a, to: b }));
    addTerrain({ wall: { points: pts, thickness: unitNum("opt-thickness", 4), windows } });
  }
  S.draft = [];
  drawDraft(board, S.subject, S.draft);
}
function addTerrain(shape) { send({ type: "edit", op: "add", kind: "terrain", item: { sight: val("opt-sight") || "blocks", ...shape } }); }
function addModel(x, y) {
  const stats = {};
  for (const part of val("opt-stats").split(",")) {
    const [k, v] = part.split("=").map((s) => s.trim());
    if (k && Number.isFinite(parseFloat(v))) stats[k] = parseFloat(v);
  }
  const weapons = val("opt-weapons").split(";").map((s) => s.trim()).filter(Boolean).map((s) => {
    const i = s.indexOf(":");
    if (i > 0) return { name: s.slice(0, i).trim(), breath: s.slice(i + 1).trim() };
    const m = s.match(/^(.*?)\s+([\d.]+)$/);
    return m ? { name: m[1], range: parseFloat(m[2]) * S.subject.unit_mm } : { name: s, range: 300 };
  });
  const item = { side: val("opt-side") || "red", at: [x, y], base: unitNum("opt-base", 25), size: val("opt-size") || "medium" };
  if (Object.keys(stats).length) item.stats = stats;
  if (weapons.length) item.weapons = weapons;
  send({ type: "edit", op: "add", kind: "model", item });
}

// -- pointer: drag models and terrain, click to rule, build ------------------------------
let drag = null;
board.addEventListener("pointerdown", (e) => {
  if (!S.subject || S.subject.kind === "places") return;
  const p = toTable(board, e);
  const target = e.target.closest("[data-id]");
  const id = target ? target.dataset.id : null;
  const kind = target ? target.dataset.kind : null;
  if (S.tool === "play" && target) {
    board.setPointerCapture(e.pointerId);
    drag = { id, kind, start: p, sx: e.clientX, sy: e.clientY, moved: false, handle: target.dataset.handle };
    e.preventDefault();
  }
});
board.addEventListener("pointermove", (e) => {
  if (!drag) return;
  const p = toTable(board, e);
  if (!drag.moved && Math.hypot(e.clientX - drag.sx, e.clientY - drag.sy) < 4) return;
  drag.moved = true;
  if (drag.kind === "model") {
    const m = modelOf(drag.id);
    m.x = p.x; m.y = p.y;
    staleStand(board);
    moveModel(board, S.subject, drag.id);
    queue({ type: "move", id: drag.id, x: p.x, y: p.y });
  } else if (drag.kind === "handle") {
    const m = modelOf(S.view.shooter);
    const deg = (Math.atan2(p.y - m.y, p.x - m.x) * 180) / Math.PI;
    if (drag.handle === "apex") S.view.apex = deg; else S.view.angle = deg;
    queue({ type: "view", ...S.view });
  } else if (drag.kind === "terrain") {
    const g = board.querySelector(`[data-id="${CSS.escape(drag.id)}"][data-kind="terrain"]`);
    const name = board.querySelector(`#labels [data-label="terrain"][data-for="${CSS.escape(drag.id)}"]`);
    for (const el of [g, name]) if (el) el.setAttribute("transform", `translate(${p.x - drag.start.x} ${-(p.y - drag.start.y)})`);
  }
});
board.addEventListener("pointerup", (e) => {
  if (!drag) return;
  const d = drag;
  drag = null;
  const p = toTable(board, e);
  if (!d.moved) return click(d.id, d.kind);
  if (d.kind === "model") queue({ type: "move", id: d.id, x: p.x, y: p.y, drop: true, snap: $("snap").checked });
  else if (d.kind === "terrain") send({ type: "edit", op: "transform", id: d.id, dx: p.x - d.start.x, dy: p.y - d.start.y });
});
board.addEventListener("click", (e) => {
  if (!S.subject || S.subject.kind === "places" || S.tool === "play") return;
  const p = toTable(board, e);
  const target = e.target.closest("[data-id]");
  const size = Math.max(S.subject.width, S.subject.depth);
  if (S.tool === "ruler" && target && target.dataset.kind === "model") {
    S.ruler.push(target.dataset.id);
    if (S.ruler.length === 2) { send({ type: "measure", a: S.ruler[0], b: S.ruler[1] }); S.ruler = []; }
  } else if (S.tool === "delete" && target && target.dataset.kind !== "handle") {
    send({ type: "edit", op: "delete", id: target.dataset.id });
  } else if (S.tool === "rect") {
    addTerrain({ rect: { at: [p.x, p.y], width: size / 6, depth: size / 10, angle: 0 } });
  } else if (S.tool === "circle") {
    addTerrain({ circle: { at: [p.x, p.y], radius: size / 30 } });
  } else if (S.tool === "model") {
    addModel(p.x, p.y);
  } else if (S.tool === "polygon" || S.tool === "wall") {
    S.draft.push([p.x, p.y]);
    drawDraft(board, S.subject, S.draft);
  }
});
board.addEventListener("dblclick", () => { if (S.tool === "polygon" || S.tool === "wall") { S.draft.pop(); finishDraft(); } });

function click(id, kind) {
  if (kind === "model") {
    S.view.shooter = S.view.shooter === id ? null : id;
    S.lastShot = null;
    S.view.angle = null; S.view.apex = null;
    S.selected = null;
    if (S.stand && S.stand.model !== S.view.shooter) staleStand(board);
    askView();
    renderStandInfo();
  } else if (kind === "terrain") {
    S.selected = S.selected === id ? null : id;
  }
  drawSubject(board, S.subject, S.view, S.selected);
  renderSelection();
}

// only the latest state per animation frame, and never more than one in flight
function queue(msg) { S.pending = msg; flushSoon(); }
function flushSoon() {
  if (S.frame || !S.pending) return;
  S.frame = true;
  requestAnimationFrame(() => {
    S.frame = false;
    if (!S.pending || S.inflight !== null) return;
    const msg = S.pending;
    S.pending = null;
    S.inflight = send(msg);
  });
}

// -- toolbar -----------------------------------------------------------------------------
$("demo").onclick = () => send({ type: "open", demo: true });
$("new").onclick = () => send({ type: "open", new: { unit: "in", width: 914.4, depth: 914.4 } });
$("upload").onchange = async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  if (file.size > 2_000_000) return status(fmt(T.labelled, { label: T.error, value: fmt(T.too_big, { name: file.name }) }), "error");
  send({ type: "open", text: await file.text(), name: file.name });
  e.target.value = "";
};
$("more").onclick = () => {
  const open = $("bar").classList.toggle("open");
  $("more").setAttribute("aria-expanded", String(open));
};
$("undo").onclick = () => send({ type: "undo" });
$("redo").onclick = () => send({ type: "redo" });
$("save").onclick = () => send({ type: "save" });
$("savefile").onclick = () => send({ type: "save", to_file: true });
$("svg").onclick = () => send({ type: "svg" });
$("lang").onchange = (e) => {
  chosen = e.target.value;
  try { localStorage.setItem(LANG_KEY, chosen); } catch { /* a page without storage */ }
  speak(chosen);
  send({ type: "lang", lang: chosen });
};
document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); send({ type: e.shiftKey ? "redo" : "undo" }); }
  if (e.key === "Enter" && S.draft.length) finishDraft();
  if (e.key === "Escape") { S.draft = []; drawDraft(board, S.subject, S.draft); }
});
