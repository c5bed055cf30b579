// Labels on the board placed where they cover no base and no other label (as the
// command line's pictures place theirs: arbitre.faces.svg.draw.Labels). Each label is
// tried at spots ever farther from what it names and goes to the first free one; where
// none is free, to the least covered one. A label moved away from what it names gets a
// thin leader line back to it. Labels are drawn above the models and the lines of sight,
// on a white halo, so a line or a base passing by never makes one unreadable.
import { s } from "./dom.js";

// a label's box is estimated from its text (DejaVu Sans: about 0.62 em a character)
const EM = 0.62;

// the box (x0, y0, x1, y1) over a placed label's box b: the area they share
function overlapBox(x0, y0, x1, y1, b) {
  const w = Math.min(x1, b.x1) - Math.max(x0, b.x0);
  const h = Math.min(y1, b.y1) - Math.max(y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

// the box (x0, y0, x1, y1) over a disc d: how deep the disc reaches into it (squared)
function overlapDisc(x0, y0, x1, y1, d) {
  const nx = Math.max(x0, Math.min(d.x, x1)), ny = Math.max(y0, Math.min(d.y, y1));
  const dx = d.x - nx, dy = d.y - ny;
  const inside = d.r * d.r - (dx * dx + dy * dy);
  return inside > 0 ? inside : 0;
}

// things kept in cells of a grid: a label only looks at the cells its box touches
// (cells numbered i * 4096 + j, the table's few hundred cells a side well within)
class Grid {
  constructor(cell) { this.cell = cell; this.cells = new Map(); }
  add(item, x0, y0, x1, y1) {
    const c = this.cell;
    for (let i = Math.floor(x0 / c); i <= Math.floor(x1 / c); i++) {
      for (let j = Math.floor(y0 / c); j <= Math.floor(y1 / c); j++) {
        const k = i * 4096 + j;
        const list = this.cells.get(k);
        if (list) list.push(item); else this.cells.set(k, [item]);
      }
    }
  }
  // the cost of box b: how much it covers of the things near it (a thing in several
  // cells is counted once: marked with the query's stamp)
  cost(x0, y0, x1, y1, stamp, stop) {
    const c = this.cell;
    let total = 0;
    for (let i = Math.floor(x0 / c); i <= Math.floor(x1 / c); i++) {
      for (let j = Math.floor(y0 / c); j <= Math.floor(y1 / c); j++) {
        const list = this.cells.get(i * 4096 + j);
        if (!list) continue;
        for (const it of list) {
          if (it.stamp === stamp) continue;
          it.stamp = stamp;
          total += it.disc ? overlapDisc(x0, y0, x1, y1, it) * 4 : overlapBox(x0, y0, x1, y1, it) * 8;
          if (total >= stop) return total;
        }
      }
    }
    return total;
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
    const u = this.u;
    const half = (Math.max(1, text.length) * EM * size) / 2;
    const dirs = AROUND[prefer] || AROUND.above;
    // spot k: ring k / 8 (each 7 px farther out), direction k % 8; the box just outside
    // the circle of radius gap that way (its near corner, or the middle of its near
    // side, on it); [cx, cy] its baseline's middle
    const spot = (k) => {
      if (k >= 40) return null;
      const [dx, dy] = dirs[k % 8];
      const gap = r + (2 + Math.floor(k / 8) * 7) * u;
      return [x + dx * gap + Math.sign(dx) * half, y + dy * gap + (dy > 0 ? 0.78 * size : dy < 0 ? -0.22 * size : 0.28 * size)];
    };
    this.todo.push({ text, size, attrs, spot, home: [x, y], reach: r, leader: true });
  }
  // `text` centred on (x, y) if free, else nearby, on rings ever farther out; `first`
  // centres tried before (a cover label along its line)
  near(text, x, y, size, attrs, first = [], leader = true) {
    const u = this.u;
    const lift = 0.28 * size; // from a box's middle to its baseline
    const spot = (k) => {
      if (k < first.length) return [first[k][0], first[k][1] + lift];
      k -= first.length;
      if (k === 0) return [x, y + lift];
      // ring n holds 8 + 4n spots: k - 1 counted through the rings
      let n = 1, i = k - 1;
      while (n <= 9 && i >= 8 + 4 * n) { i -= 8 + 4 * n; n++; }
      if (n > 9) return null;
      const count = 8 + 4 * n, d = n * 6 * u;
      const a = (2 * Math.PI * i) / count + (n % 2 ? 0 : Math.PI / count);
      return [x + d * Math.cos(a), y + d * Math.sin(a) * 0.6 + lift];
    };
    this.todo.push({ text, size, attrs, spot, home: [x, y], reach: 0, leader });
  }
  // how much box b covers (bases, labels placed), more than `stop` cut short; a box off
  // the bounds costs more than any overlap
  cost(x0, y0, x1, y1, stop = Infinity) {
    const B = this.bounds;
    const off = x0 < B.x0 || y0 < B.y0 || x1 > B.x1 || y1 > B.y1 ? 1e12 : 0;
    if (off >= stop) return off;
    this.stamp = (this.stamp || 0) + 1;
    return off + this.grid.cost(x0, y0, x1, y1, this.stamp, stop - off);
  }
  // every label added, placed in order, drawn in `g` (leader lines under the texts);
  // a label already in `g` with the same words, kind and owner is moved, not made again
  // (a drag step places every label again: most stay where they were)
  place(g) {
    const u = this.u;
    const leaders = s("g", { class: "leaders" });
    const texts = [];
    const kept = new Map();
    for (const el of g.querySelectorAll(":scope > text")) kept.set(el.dataset.key, el);
    for (const l of this.todo) {
      // the box of a label whose baseline's middle is (cx, cy): its half width w,
      // 0.78 em above the baseline and 0.22 em below
      const w = (Math.max(1, l.text.length) * EM * l.size) / 2, up = 0.78 * l.size, down = 0.22 * l.size;
      let best = null, bc = Infinity;
      for (let k = 0, at = l.spot(0); at; at = l.spot(++k)) {
        const cx = at[0], cy = at[1];
        const c = this.cost(cx - w, cy - up, cx + w, cy + down, bc);
        if (c < bc) { bc = c; best = at; }
        if (c === 0) break;
      }
      const [bx, by] = best;
      const b = { x0: bx - w, y0: by - up, x1: bx + w, y1: by + down };
      best = { cx: bx, cy: by };
      b.label = true;
      this.grid.add(b, b.x0, b.y0, b.x1, b.y1);
      const mid = [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
      const far = Math.hypot(mid[0] - l.home[0], mid[1] - l.home[1]) - l.reach;
      if (l.leader && far > 16 * u + l.size) {
        const end = [Math.max(b.x0, Math.min(l.home[0], b.x1)), Math.max(b.y0, Math.min(l.home[1], b.y1))];
        leaders.append(s("line", { x1: l.home[0], y1: l.home[1], x2: end[0], y2: end[1], class: "leader", "stroke-width": u }));
      }
      const attrs = { "font-size": l.size, "stroke-width": 3 * u, "text-anchor": "middle", fill: "#111", ...l.attrs, class: `label ${(l.attrs && l.attrs.class) || ""}`.trim() };
      const key = `${attrs["data-label"] || ""}|${attrs["data-for"] || ""}|${attrs.fill}|${l.size}|${l.text}`;
      let el = kept.get(key);
      if (el) {
        kept.delete(key);
        el.setAttribute("x", best.cx);
        el.setAttribute("y", best.cy);
        el.removeAttribute("transform"); // a piece's name dragged with it, now placed
      } else {
        el = s("text", { x: best.cx, y: best.cy, ...attrs, "data-key": key }, l.text);
      }
      texts.push(el);
    }
    g.replaceChildren(leaders, ...texts);
  }
}
