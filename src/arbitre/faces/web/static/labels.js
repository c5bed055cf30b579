// Labels on the board placed where they cover no base and no other label (as the
// command line's pictures place theirs: arbitre.faces.svg.draw.Labels). Each label is
// tried at spots ever farther from what it names and goes to the first free one; where
// none is free, to the least covered one. A label moved away from what it names gets a
// thin leader line back to it. Labels are drawn above the models and the lines of sight,
// on a white halo, so a line or a base passing by never makes one unreadable.
import { s } from "./dom.js";

// a label's box is estimated from its text (DejaVu Sans: about 0.62 em a character)
const EM = 0.62;

function boxOf(text, size, cx, cy) {
  const w = Math.max(1, text.length) * EM * size;
  return { x0: cx - w / 2, y0: cy - 0.78 * size, x1: cx + w / 2, y1: cy + 0.22 * size };
}

function overlapBox(a, b) {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

function overlapDisc(b, d) {
  const nx = Math.max(b.x0, Math.min(d.x, b.x1)), ny = Math.max(b.y0, Math.min(d.y, b.y1));
  const dx = d.x - nx, dy = d.y - ny;
  const inside = d.r * d.r - (dx * dx + dy * dy);
  return inside > 0 ? inside : 0;
}

// things kept in cells of a grid: a label only looks at the cells its box touches
class Grid {
  constructor(cell) { this.cell = cell; this.cells = new Map(); }
  *keys(x0, y0, x1, y1) {
    const c = this.cell;
    for (let i = Math.floor(x0 / c); i <= Math.floor(x1 / c); i++) for (let j = Math.floor(y0 / c); j <= Math.floor(y1 / c); j++) yield `${i},${j}`;
  }
  add(item, x0, y0, x1, y1) {
    for (const k of this.keys(x0, y0, x1, y1)) {
      let list = this.cells.get(k);
      if (!list) { list = []; this.cells.set(k, list); }
      list.push(item);
    }
  }
  near(b) {
    const seen = new Set();
    for (const k of this.keys(b.x0, b.y0, b.x1, b.y1)) for (const it of this.cells.get(k) || []) seen.add(it);
    return seen;
  }
}

// directions tried around a base, the preferred one first (SVG y down)
const AROUND = {
  above: [[0, -1], [0, 1], [1, 0], [-1, 0], [0.72, -0.72], [-0.72, -0.72], [0.72, 0.72], [-0.72, 0.72]],
  below: [[0, 1], [1, 0], [-1, 0], [0.72, 0.72], [-0.72, 0.72], [0, -1], [0.72, -0.72], [-0.72, -0.72]],
  corner: [[0.72, -0.72], [-0.72, -0.72], [0.72, 0.72], [-0.72, 0.72], [1, 0], [-1, 0], [0, -1], [0, 1]],
};

export class Placer {
  // bounds: the SVG box labels stay in; u: mm per screen pixel
  constructor(bounds, u) {
    this.bounds = bounds;
    this.u = u;
    this.grid = new Grid(40 * u);
    this.todo = [];
  }
  // keep labels off the disc (x, y, r) (SVG coordinates: a base and its rings)
  avoidDisc(x, y, r) {
    const d = { disc: true, x, y, r };
    this.grid.add(d, x - r, y - r, x + r, y + r);
  }
  // `text` outside the circle (x, y, r), on the side `prefer` (above, below, corner)
  around(text, x, y, r, size, prefer, attrs) {
    this.todo.push({ text, size, attrs, spots: this.aroundSpots(text, size, x, y, r, prefer), home: [x, y], reach: r, leader: true });
  }
  // `text` centred on (x, y) if free, else nearby; `spots` other first choices (a
  // cover label along its line)
  near(text, x, y, size, attrs, spots = [], leader = true) {
    const u = this.u;
    const out = [...spots, [x, y]];
    for (let ring = 1; ring <= 9; ring++) {
      const d = ring * 6 * u;
      const n = 8 + 4 * ring;
      for (let k = 0; k < n; k++) {
        const a = (2 * Math.PI * k) / n + (ring % 2 ? 0 : Math.PI / n);
        out.push([x + d * Math.cos(a), y + d * Math.sin(a) * 0.6]);
      }
    }
    this.todo.push({ text, size, attrs, spots: out.map(([cx, cy]) => [cx, cy + 0.28 * size]), home: [x, y], reach: 0, leader });
  }
  aroundSpots(text, size, x, y, r, prefer) {
    const u = this.u;
    const half = (Math.max(1, text.length) * EM * size) / 2;
    const out = [];
    for (let ring = 0; ring < 5; ring++) {
      const gap = r + (2 + ring * 7) * u;
      for (const [dx, dy] of AROUND[prefer] || AROUND.above) {
        // the box just outside the circle in that direction: its near corner (or the
        // middle of its near side) on the circle of radius gap; (cx, cy) its baseline
        const cx = x + dx * gap + Math.sign(dx) * half;
        const cy = y + dy * gap + (dy > 0 ? 0.78 * size : dy < 0 ? -0.22 * size : 0.28 * size);
        out.push([cx, cy]);
      }
    }
    return out;
  }
  cost(b) {
    const B = this.bounds;
    let c = 0;
    if (b.x0 < B.x0 || b.y0 < B.y0 || b.x1 > B.x1 || b.y1 > B.y1) c += 1e9;
    for (const it of this.grid.near(b)) c += it.disc ? overlapDisc(b, it) * 4 : overlapBox(b, it) * 8;
    return c;
  }
  // every label added, placed in order, drawn in `g` (leader lines under the texts)
  place(g) {
    const u = this.u;
    const leaders = s("g", { class: "leaders" });
    const texts = [];
    for (const l of this.todo) {
      let best = null;
      for (const [cx, cy] of l.spots) {
        const b = boxOf(l.text, l.size, cx, cy);
        const c = this.cost(b);
        if (!best || c < best.c) best = { c, cx, cy, b };
        if (c === 0) break;
      }
      const b = best.b;
      b.label = true;
      this.grid.add(b, b.x0, b.y0, b.x1, b.y1);
      const mid = [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
      const far = Math.hypot(mid[0] - l.home[0], mid[1] - l.home[1]) - l.reach;
      if (l.leader && far > 16 * u + l.size) {
        const end = [Math.max(b.x0, Math.min(l.home[0], b.x1)), Math.max(b.y0, Math.min(l.home[1], b.y1))];
        leaders.append(s("line", { x1: l.home[0], y1: l.home[1], x2: end[0], y2: end[1], class: "leader", "stroke-width": u }));
      }
      texts.push(s("text", { x: best.cx, y: best.cy, "font-size": l.size, "stroke-width": 3 * u, "text-anchor": "middle", fill: "#111", ...l.attrs, class: `label ${(l.attrs && l.attrs.class) || ""}`.trim() }, l.text));
    }
    g.append(leaders, ...texts);
  }
}
