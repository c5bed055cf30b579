// The side panel: the rulings of the view, their reasons (rule IDs and ids), close calls,
// a shooter's targets with their odds, a breath's victims and laws, a unit's moves.
import { h, fmt } from "./dom.js";
import { COLOURS } from "./draw.js";

let T = {};
export function setPanelTexts(texts) { T = texts; }
// the margin tests of the answer shown, worded by the server in the page's language
let TESTS = {};
export function setTests(tests) { TESTS = tests || {}; }

// a number as the page's language writes it (decimal comma in French)
const num = (x, digits = 3) => String(Math.round(x * 10 ** digits) / 10 ** digits).replace(".", T.decimal || ".");
const unitName = (u) => T[`unit_${u}`] || u || "";

function reasons(list, cls = "reasons") {
  if (!list || !list.length) return null;
  return h("ul", { class: cls }, ...list.map((r) => h("li", {}, h("span", { class: "rule" }, r.rule), " ", r.text, r.ids && r.ids.length ? h("span", { class: "badge" }, r.ids.join(", ")) : null)));
}
function refusals(list) {
  if (!list || !list.length) return null;
  return h("div", {}, h("strong", {}, T.refusals), reasons(list));
}
function close(r, unit, short = false) {
  if (!r.close_call) return null;
  const margin = r.margin == null ? "" : `${num(r.margin)} ${unitName(unit)}`;
  const full = fmt(T.close_call, { margin, test: TESTS[r.margin_test] || r.margin_test });
  return h("span", { class: "badge close", title: full }, short ? `! ${margin}` : full);
}
const pct = (c) => (c ? `${c.p} (${fmt(T.percent, { n: num(c.float * 100, 1) })})` : "");

export function showAnswer(panel, S, actions) {
  const answer = S.answer;
  const v = S.view;
  const out = [];
  if (!v.shooter) out.push(h("p", {}, T.nothing_selected));
  if (S.lastShot) out.push(shot(S.lastShot));
  if (answer) {
    // the question id and the ruleset, as the command line names them, then the
    // question's title in the page's language (the server words it)
    const question = v.question || answer.kind;
    const q = (S.subject.questions || []).find((x) => x.rules === answer.rules && x.question === question);
    out.push(h("h3", { id: "answer-title", title: q ? `${q.question_title} (${q.title})` : "" }, `${question} · ${answer.rules}`));
    if (q) out.push(h("div", { class: "hint", id: "answer-subtitle" }, q.question_title));
    if (answer.kind === "los") out.push(losLegend(answer));
    for (const r of answer.rulings) out.push(ruling(r, answer, S, actions));
    if (!answer.rulings.length) out.push(h("p", {}, T.no_rulings));
  }
  panel.replaceChildren(...out.filter(Boolean));
}

// the key of the board's marks, each drawn as the board draws it (a blocked line
// dashed, a close call a dashed ring); Dark Age's window and witness line when shown
function losLegend(answer) {
  const item = (c, text, cls = "") => h("span", {}, h("span", { class: `sw ${cls}`, style: `--c:${c}` }), text);
  const rulings = answer.rulings || [];
  return h("div", { class: "legend" }, item(COLOURS.clear, T.legend_clear), item(COLOURS.cover, T.legend_cover), item(COLOURS.blocked, T.legend_blocked, "dash"), item(COLOURS.close, T.legend_close, "ring"),
    rulings.some((r) => r.witness) ? item(COLOURS.clear, T.legend_witness) : null,
    rulings.some((r) => r.window && !r.visible) ? item("#7a7a7a", T.legend_window, "dash thin") : null);
}

function ruling(r, answer, S, actions) {
  if (r.kind === "los") {
    const state = !r.visible ? "blocked" : r.cover ? "cover" : "clear";
    const word = state === "cover" ? fmt(T.cover, { n: r.cover }) : T[state];
    return h("div", { class: `rul ${state}`, "data-target": r.target },
      h("div", { class: "head" }, fmt(T.pair, { shooter: r.shooter, target: r.target, state: word }), close(r, answer.unit), because(r)),
      reasons(r.reasons), refusals(r.refusals));
  }
  if (r.kind === "targets") return targets(r, answer, S, actions);
  if (r.kind === "breath" || r.kind === "blast") return breath(r, answer, actions);
  if (r.kind === "move") return moves(r, actions);
  return h("div", { class: "rul" }, h("div", { class: "head" }, r.kind), reasons(r.reasons), refusals(r.refusals));
}

// what decided a line (the rules and pieces: "F2 tower"), beside the heading that
// already says clear, cover or blocked: nothing more when it says only "clear"
function because(r) {
  if (!r.because || r.because === "clear") return null;
  return h("span", { class: "badge because", title: T.because_title }, r.because);
}

function targets(r, answer, S, actions) {
  const rows = r.targets.map((t) => {
    const seed = Math.floor(Math.random() * 1e6);
    // the target, then under it whether it may be shot (M3-M5) and its close call
    return h("tr", { "data-target": t.target, class: t.legal ? "legal" : "notlegal" },
      h("td", {}, h("div", { class: "who" }, t.target),
        h("div", { class: "tags" }, t.legal ? h("span", { class: "badge legal" }, T.legal) : h("span", { class: "badge no" }, T.not_legal), t.closest && t.legal ? h("span", { class: "badge must" }, T.must) : null, close(t, answer.unit, true))),
      h("td", {}, t.need_text || "—"),
      h("td", {}, pct(t.odds && t.odds.hit)),
      h("td", {}, pct(t.odds && t.odds.hit_cover)),
      h("td", {}, t.legal ? h("button", { class: "shoot", title: fmt(T.shoot_seed, { seed }), onclick: () => actions.shoot(t.target, seed) }, T.shoot) : null));
  });
  const details = r.targets.map((t) => h("details", {}, h("summary", {}, t.target), reasons(t.reasons)));
  return h("div", { class: "rul" },
    h("div", { class: "head" }, fmt(T.labelled, { label: r.shooter, value: `${r.weapon || ""} ${r.may_shoot ? "" : T.may_not_shoot}` })),
    h("table", { class: "t targets" }, h("tr", {}, ...[T.target, T.need, T.hit, T.hit_cover, ""].map((x) => h("th", {}, x))), ...rows),
    reasons(r.reasons), refusals(r.refusals), ...details);
}

// a rolled shot in a few words: "captain → skink: hit (rolled with seed 894020)"
export function shotHeading(r) {
  return fmt(T.pair, { shooter: r.shooter, target: r.target, state: fmt(T.rolled_state, { outcome: T[r.outcome] || r.outcome, seed: r.seed }) });
}

function shot(answer) {
  const r = answer.rulings[0];
  if (!r) return null;
  if (r.crossed) {  // a shot across places (P5): the places crossed, the reduction
    return h("div", { class: "rul", id: "shot" },
      h("div", { class: "head" }, fmt(T.pair, { shooter: r.shooter, target: r.target, state: r.allowed ? fmt(T.shot_reduction, { n: r.reduction }) : T.shot_refused })),
      h("div", {}, h("span", { class: "sw dash", style: `--c:${COLOURS.cover}` }), fmt(T.crossed, { places: r.crossed.join(", ") || "—" })),
      reasons(r.reasons), refusals(r.refusals));
  }
  return h("div", { class: "rul", id: "shot" },
    h("div", { class: "head" }, shotHeading(r)),
    h("ul", { class: "reasons" }, ...(r.dice || []).map((d) => h("li", {}, fmt(T.die, d)))),
    reasons(r.reasons));
}

// an exact number (a chance object: "p" exact, "float"), written whole when short, else
// rounded with the exact value in the tooltip (a fraction of 2^40 fits no panel)
const LONG = 11;
function exact(c, digits = 2) {
  if (!c) return "";
  const tiny = 0.5 * 10 ** -digits; // a chance or a mean too small to round: said so
  const rounded = c.float > 0 && c.float < tiny ? `< ${num(10 ** -digits, digits)}` : num(c.float, digits);
  if (String(c.p).length <= LONG) return String(c.p) === rounded || rounded.startsWith("<") ? String(c.p) : `${c.p} ≈ ${rounded}`;
  return h("span", { class: "exact", title: fmt(T.exact_title, { p: c.p }) }, rounded.startsWith("<") ? rounded : `≈ ${rounded}`);
}

function law(l) {
  if (!l) return "";
  return l.outcomes.map((o, i) => `${o}: ${l.p[i]}`).join(", ");
}

function breath(r, answer, actions) {
  const t = r.template || {};
  const rows = (r.victims || []).map((v) => h("tr", { "data-victim": v.id },
    h("td", {}, v.id, close(v, answer.unit)),
    h("td", {}, v.in_area ? T.in_area : `${T.spill} (${(v.via || []).join(", ")})`),
    h("td", {}, pct(v.p_affected)),
    h("td", { title: law(v.hp_lost) }, v.hp_lost ? h("span", {}, `${T.expected_word} `, exact(v.hp_lost.mean)) : "")));
  return h("div", { class: "rul", id: "breath" },
    h("div", { class: "head" }, fmt(T.labelled, { label: r.shooter, value: (r.weapon && r.weapon.name) || "" }), t.angle != null ? h("span", { class: "badge" }, fmt(T.aim, { angle: Math.round(t.angle * 10) / 10 })) : null),
    h("div", { class: "hint" }, T.breath_hint),
    h("button", { id: "best", onclick: actions.best }, T.best),
    r.value ? h("div", {}, `${T.value_word} `, exact(r.value)) : null,
    h("table", { class: "t" }, h("tr", {}, ...[T.victims, "", T.p_affected, T.hp_lost].map((x) => h("th", {}, x))), ...rows,
      rows.length ? null : h("tr", { class: "none" }, h("td", { colspan: 4 }, T.no_victims))),
    reasons(r.reasons), refusals(r.refusals));
}

function moves(r, actions) {
  // a row played by a click, as a click on its card (the first way of each place)
  const seen = new Set();
  const rows = (r.ways || []).map((w) => {
    const first = !seen.has(w.place);
    seen.add(w.place);
    return h("tr", { "data-place": w.place, class: first ? "play" : "", title: first ? fmt(T.play_row, { unit: r.unit, place: w.place }) : "", onclick: first && actions.play ? () => actions.play(w.place) : null }, h("td", {}, w.place), h("td", {}, String(w.spent)), h("td", {}, String(w.left)), h("td", {}, String(w.exhaustion)));
  });
  return h("div", { class: "rul" },
    h("div", { class: "head" }, fmt(T.ways, { unit: r.unit, points: r.points })),
    h("table", { class: "t" }, h("tr", {}, ...[T.place, T.spent, T.left, T.exhaustion].map((x) => h("th", {}, x))), ...rows),
    reasons(r.reasons), refusals(r.refusals));
}
