"""Where the cards of a map of places go (a face, no rules): a deterministic layout of
its own, linear in the size of the map, that never needs scipy.

Places stating ``at: [x, y]`` keep their position in proportion (y up, any unit; scaled
so that the map is about sqrt(n) cards across); a card that would overlap one already
placed goes to the nearest free spot of a lattice around it. The others are laid out on
the lattice of card pitches, as cards on a table: each connected part of the map grows
from its most connected place (or from its places stating ``at``), the place with the
most neighbours already down going next, on the free spot next to those neighbours that
is nearest to all of them (orthogonal contact preferred, a slight pull to the part's
centre keeping long chains compact); when no spot next to them is free, the nearest free
spot of a spiral around the part's centre. Parts without ``at`` are packed in rows,
largest first, the places with no neighbour at all in one block.

"Is this spot free" looks at the cards of the nine buckets around it, so the layout
costs a few dozen such looks per place whatever the map's size (5,000 places in a
fraction of a second: ``bench/bench_places.py``). Maps of up to :data:`CAREFUL` places
also keep short ways from passing under cards, and small parts try several roots. The
picture then grows the map, across or down, until the junction badges of every way fit
between its cards, and :func:`badge_spots` puts each way's badges where they cover no
card and no other badge: along the way, else off it on a leader line.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from functools import cache

from arbitre.places import Junction, PlaceMap

#: Card size and gap, in pixels.
CARD_W, CARD_H, GAP = 200.0, 124.0, 70.0
#: The lattice the cards are laid out on, and the least distance, across or down,
#: between the centres of two cards (cards nearer on both axes overlap).
PITCH_X, PITCH_Y = CARD_W + GAP, CARD_H + GAP
NEED_X, NEED_Y = CARD_W + GAP * 0.6, CARD_H + GAP * 0.6
#: Placed neighbours looked at to choose a spot; pull towards the part's centre.
NEAREST, PULL = 6, 0.02
#: Maps up to this many places also keep short ways from passing under cards (each way
#: under a card costs UNDER lattice steps); the longest way so looked at, in steps.
CAREFUL, UNDER, SHORT = 300, 5.0, 4
#: Parts up to this many places and ways are laid out from each of their TRIES most
#: connected places, and the layout with the fewest ways under cards, then the fewest
#: crossings, kept.
SMALL, SMALL_WAYS, TRIES = 40, 120, 8

XY = tuple[float, float]


class Board:
    """The cards placed so far, bucketed by lattice cell, and a spiral of free spots.

    While every card is on the lattice (no ``at`` stated), two distinct lattice spots
    never overlap, and "is this lattice spot free" is one look in ``cells``."""

    def __init__(self, origin: XY = (0.0, 0.0)) -> None:
        self.at: dict[str, XY] = {}
        self.buckets: dict[tuple[int, int], list[XY]] = {}
        self.cells: set[tuple[int, int]] = set()
        self.offgrid = False
        self.careful = False
        self.crossed: dict[tuple[int, int], int] = {}  # lattice cell -> ways under it
        self.origin = origin
        self._spiral = _spiral()
        self._rings: dict[tuple[int, int], int] = {}

    @staticmethod
    def _key(x: float, y: float) -> tuple[int, int]:
        return math.floor(x / PITCH_X), math.floor(y / PITCH_Y)

    @staticmethod
    def _cell(x: float, y: float) -> tuple[int, int] | None:
        i, j = round(x / PITCH_X), round(y / PITCH_Y)
        return (i, j) if abs(i * PITCH_X - x) < 1e-6 and abs(j * PITCH_Y - y) < 1e-6 else None

    def free(self, x: float, y: float) -> bool:
        """Whether a card centred at (x, y) overlaps none placed (margins included)."""
        if not self.offgrid:
            cell = self._cell(x, y)
            if cell is not None:
                return cell not in self.cells
        kx, ky = self._key(x, y)
        for dx, dy in itertools.product((-1, 0, 1), repeat=2):
            for px, py in self.buckets.get((kx + dx, ky + dy), ()):
                if abs(px - x) < NEED_X - 1e-6 and abs(py - y) < NEED_Y - 1e-6:
                    return False
        return True

    def put(self, ident: str, x: float, y: float) -> None:
        self.at[ident] = (x, y)
        self.buckets.setdefault(self._key(x, y), []).append((x, y))
        cell = self._cell(x, y)
        if cell is None:
            self.offgrid = True
        else:
            self.cells.add(cell)

    def near(self, x: float, y: float) -> XY:
        """The nearest free lattice spot around (x, y), ring by ring (itself if free).
        Cards wanting the same bucket go on from the ring the last one stopped at, so
        that many cards stated at one spot cost the rings they fill, not their square."""
        key = self._key(x, y)
        for r in itertools.count(self._rings.get(key, 0)):
            for i, j in _ring(r):
                spot = (x + i * PITCH_X, y + j * PITCH_Y)
                if self.free(*spot):
                    self._rings[key] = r
                    return spot
        raise AssertionError("unreachable: the rings are endless")

    def next_free(self) -> XY:
        """The next free spot of a spiral around the origin. Spots only ever fill, so the
        spiral never goes back: all its calls together cost the spots it walks past."""
        for i, j in self._spiral:
            spot = (self.origin[0] + i * PITCH_X, self.origin[1] + j * PITCH_Y)
            if self.free(*spot):
                return spot
        raise AssertionError("unreachable: the spiral is endless")


@cache
def _ring(r: int) -> tuple[tuple[int, int], ...]:
    """The lattice offsets at ring distance ``r``, nearest first (orthogonal before
    diagonal), in a fixed order."""
    if r == 0:
        return ((0, 0),)
    cells = [(i, j) for i in range(-r, r + 1) for j in range(-r, r + 1) if max(abs(i), abs(j)) == r]
    return tuple(sorted(cells, key=lambda c: (c[0] ** 2 + c[1] ** 2, c[1], c[0])))


def _spiral() -> Iterator[tuple[int, int]]:
    for r in itertools.count():
        yield from _ring(r)


def _distance(a: XY, b: XY) -> float:
    """Lattice steps between two spots: side by side 1, corner to corner 1.3."""
    ax, ay = abs(a[0] - b[0]) / PITCH_X, abs(a[1] - b[1]) / PITCH_Y
    return max(ax, ay) + 0.3 * min(ax, ay)


def _meets(a: XY, b: XY, centre: XY) -> bool:
    """Whether segment ab enters the card centred at ``centre``, a margin included."""
    lo, hi = 0.0, 1.0
    for p, d, low, high in (
        (a[0], b[0] - a[0], centre[0] - CARD_W / 2 - 8, centre[0] + CARD_W / 2 + 8),
        (a[1], b[1] - a[1], centre[1] - CARD_H / 2 - 8, centre[1] + CARD_H / 2 + 8),
    ):
        if d == 0:
            if not low <= p <= high:
                return False
            continue
        t1, t2 = sorted(((low - p) / d, (high - p) / d))
        lo, hi = max(lo, t1), min(hi, t2)
    return lo < hi


def _cells_under(a: XY, b: XY) -> list[tuple[int, int]]:
    """The lattice cells, but its ends, a short way from a to b passes over."""
    (i0, j0), (i1, j1) = (
        (round(a[0] / PITCH_X), round(a[1] / PITCH_Y)),
        (
            round(b[0] / PITCH_X),
            round(b[1] / PITCH_Y),
        ),
    )
    if abs(i1 - i0) + abs(j1 - j0) <= 1 or max(abs(i1 - i0), abs(j1 - j0)) > SHORT:
        return []
    return [
        (i, j)
        for i in range(min(i0, i1), max(i0, i1) + 1)
        for j in range(min(j0, j1), max(j0, j1) + 1)
        if (i, j) not in ((i0, j0), (i1, j1)) and _meets(a, b, (i * PITCH_X, j * PITCH_Y))
    ]


def _clutter(board: Board, spot: XY, placed: list[XY]) -> float:
    """What a card at ``spot`` hides (ways already drawn under it) or makes pass under
    other cards (its ways to ``placed``), on careful boards."""
    if not board.careful:
        return 0.0
    cell = (round(spot[0] / PITCH_X), round(spot[1] / PITCH_Y))
    hidden = board.crossed.get(cell, 0)
    under = sum(c in board.cells for u in placed for c in _cells_under(spot, u))
    return UNDER * (hidden + under)


def _spot(board: Board, placed: list[XY]) -> XY:
    """The free spot for a card whose placed neighbours are ``placed``: next to them and
    nearest to all of them (and, on careful boards, hiding the fewest ways), else the
    next free spot of the spiral."""
    for reach in (2,) if board.careful else (1, 2):
        candidates = {
            (ux + i * PITCH_X, uy + j * PITCH_Y)
            for ux, uy in placed[:4]
            for i in range(-reach, reach + 1)
            for j in range(-reach, reach + 1)
            if i or j
        }
        free = [c for c in candidates if board.free(*c)]
        if free:
            return min(
                free,
                key=lambda c: (
                    sum(_distance(c, u) for u in placed[:NEAREST])
                    + PULL * _distance(c, board.origin)
                    + _clutter(board, c, placed),
                    c[1],
                    c[0],
                ),
            )
    return board.next_free()


def _grow(
    board: Board,
    part: list[str],
    neighbours: Callable[[str], list[str]],
    rank: Mapping[str, int],
    root: str | None = None,
) -> None:
    """Lay out the places of ``part`` not yet on ``board`` (see the module's words); with
    nothing of it placed yet, from ``root`` (default: its most connected place)."""
    todo = set(part) - set(board.at)
    if not todo:
        return
    if len(todo) == len(part):
        root = root or min(part, key=lambda p: (-len(neighbours(p)), rank[p]))
        board.put(root, *board.origin)
        todo.discard(root)
    count = dict.fromkeys(todo, 0)
    heap: list[tuple[int, int, str]] = []
    for p in sorted(board.at.keys() & set(part), key=rank.__getitem__):
        for q in neighbours(p):
            if q in count:
                count[q] += 1
                heapq.heappush(heap, (-count[q], rank[q], q))
    while todo:
        if heap:
            minus, _, p = heapq.heappop(heap)
            if p not in todo or -minus != count[p]:
                continue
        else:  # no placed neighbour at all: take the first left
            p = min(todo, key=rank.__getitem__)
        placed = [board.at[q] for q in neighbours(p) if q in board.at]
        spot = _spot(board, placed)
        board.put(p, *spot)
        todo.discard(p)
        if board.careful:
            for u in placed:
                for c in _cells_under(spot, u):
                    board.crossed[c] = board.crossed.get(c, 0) + 1
        for q in neighbours(p):
            if q in todo:
                count[q] += 1
                heapq.heappush(heap, (-count[q], rank[q], q))


def _cross(a: XY, b: XY, c: XY, d: XY) -> bool:
    def side(p: XY, q: XY, r: XY) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _score(at: Mapping[str, XY], ways: list[tuple[str, str]]) -> tuple[int, int]:
    """How hard a small layout is to read: ways passing under a card, ways crossing."""
    under = sum(_meets(at[a], at[b], at[c]) for a, b in ways for c in at if c != a and c != b)
    crossings = sum(
        not {a, b} & {c, d} and _cross(at[a], at[b], at[c], at[d])
        for (a, b), (c, d) in itertools.combinations(ways, 2)
    )
    return under, crossings


def _part_board(
    part: list[str], neighbours: Callable[[str], list[str]], rank: Mapping[str, int], n: int
) -> Board:
    """The layout of a part without ``at`` on its own board: from its most connected
    place; for a small part, the most readable of those grown from each of its
    :data:`TRIES` most connected places."""
    ways = [(a, b) for a in part for b in neighbours(a) if rank[a] < rank[b]]
    roots = sorted(part, key=lambda p: (-len(neighbours(p)), rank[p]))
    small = n <= CAREFUL and len(part) <= SMALL and len(ways) <= SMALL_WAYS
    best: tuple[tuple[int, int], int, Board] | None = None
    for k, root in enumerate(roots[: TRIES if small else 1]):
        board = Board()
        board.careful = n <= CAREFUL
        _grow(board, part, neighbours, rank, root)
        score = _score(board.at, ways) if small else (0, 0)
        if best is None or (score, k) < best[:2]:
            best = (score, k, board)
    assert best is not None
    return best[2]


def _parts(ids: list[str], neighbours: Callable[[str], list[str]]) -> list[list[str]]:
    """The connected parts of the map, each in the order its places were reached."""
    seen: set[str] = set()
    parts = []
    for start in ids:
        if start in seen:
            continue
        seen.add(start)
        part, k = [start], 0
        while k < len(part):
            for q in neighbours(part[k]):
                if q not in seen:
                    seen.add(q)
                    part.append(q)
            k += 1
        parts.append(part)
    return parts


def _given(placemap: PlaceMap, board: Board) -> None:
    """Places stating ``at``, scaled so that the map is about sqrt(n) cards across, y
    down; a card that would overlap one placed before it goes to the nearest free spot."""
    given = [(p.id, p.at) for p in placemap.places if p.at is not None]
    if not given:
        return
    xs = [float(at[0]) for _, at in given]
    ys = [float(at[1]) for _, at in given]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = math.sqrt(len(placemap.places)) * PITCH_X / span
    for (ident, _), x, y in zip(given, xs, ys, strict=True):
        spot = ((x - min(xs)) * scale, (max(ys) - y) * scale)
        board.put(ident, *board.near(*spot))
    board.origin = (
        sum(x for x, _ in board.at.values()) / len(board.at),
        sum(y for _, y in board.at.values()) / len(board.at),
    )


def _pack(boards: list[Board], top: float) -> dict[str, XY]:
    """Boards in rows below ``top``, largest first, each moved by whole pitches."""
    out: dict[str, XY] = {}
    boxes = []
    for b in boards:
        xs = [x for x, _ in b.at.values()]
        ys = [y for _, y in b.at.values()]
        boxes.append((min(xs), min(ys), max(xs) - min(xs) + PITCH_X, max(ys) - min(ys) + PITCH_Y))
    area = sum(w * h for _, _, w, h in boxes)
    width = max([math.sqrt(area) * 1.3, *(w for _, _, w, _ in boxes)], default=0.0)
    x = row = 0.0
    y = top
    for b, (x0, y0, w, h) in zip(boards, boxes, strict=True):
        if x and x + w > width:
            x, y, row = 0.0, y + row + GAP, 0.0
        for ident, (px, py) in b.at.items():
            out[ident] = (px - x0 + x, py - y0 + y)
        x, row = x + w + GAP, max(row, h)
    return out


def _singles(ids: list[str]) -> Board:
    """Places with no neighbour, in one block of rows, file order."""
    board = Board()
    across = max(1, math.ceil(math.sqrt(len(ids) * PITCH_Y / PITCH_X)))
    for k, ident in enumerate(ids):
        board.put(ident, (k % across) * PITCH_X, (k // across) * PITCH_Y)
    return board


def lattice(placemap: PlaceMap) -> dict[str, XY]:
    """Card centres in pixels (SVG y down) before the room for junction badges: see the
    module's words. Deterministic: the same map always lays out the same."""
    graph = placemap.graph
    ids = [p.id for p in placemap.places]
    rank = {p: k for k, p in enumerate(ids)}
    cache: dict[str, list[str]] = {}

    def neighbours(p: str) -> list[str]:
        if p not in cache:
            cache[p] = sorted(graph.neighbors(p), key=rank.__getitem__)
        return cache[p]

    shared = Board()
    shared.careful = len(ids) <= CAREFUL
    _given(placemap, shared)
    parts = _parts(ids, neighbours)
    alone: list[str] = []
    boards: list[Board] = []
    for part in sorted(parts, key=lambda part: (-len(part), rank[part[0]])):
        if any(p in shared.at for p in part):
            _grow(shared, part, neighbours, rank)
        elif len(part) == 1:
            alone.append(part[0])
        else:
            boards.append(_part_board(part, neighbours, rank, len(ids)))
    if alone:
        boards.append(_singles(alone))
    top = max((y for _, y in shared.at.values()), default=-PITCH_Y) + PITCH_Y + GAP
    return shared.at | _pack(boards, top if shared.at else 0.0)


# -- where the junction badges go ------------------------------------------------------


def edge_ends(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float, float, float]:
    """Where the segment between two card centres leaves each card."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = min(CARD_W / 2 / abs(dx) if dx else math.inf, CARD_H / 2 / abs(dy) if dy else math.inf)
    t = min(t, 0.5)
    return a[0] + dx * t, a[1] + dy * t, b[0] - dx * t, b[1] - dy * t


class Boxes:
    """Boxes (x0, y0, x1, y1) bucketed on a grid, to find those a box meets quickly."""

    CELL = 256.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _keys(self, box: tuple[float, float, float, float]) -> Iterator[tuple[int, int]]:
        c = self.CELL
        for i in range(math.floor(box[0] / c), math.floor(box[2] / c) + 1):
            for j in range(math.floor(box[1] / c), math.floor(box[3] / c) + 1):
                yield i, j

    def add(self, box: tuple[float, float, float, float]) -> None:
        for key in self._keys(box):
            self.cells.setdefault(key, []).append(box)

    def overlap(self, box: tuple[float, float, float, float]) -> float:
        """The area of ``box`` covered by the boxes added (each counted once)."""
        seen = {b for key in self._keys(box) for b in self.cells.get(key, ())}
        return sum(
            max(0.0, min(box[2], b[2]) - max(box[0], b[0]))
            * max(0.0, min(box[3], b[3]) - max(box[1], b[1]))
            for b in seen
        )


#: Where along the visible part of a way its badges may go, in order of preference.
BADGE_AT = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)


#: How far off its way a badge may go (past half its own size), on a leader line.
BADGE_OFF = (16.0, 40.0, 70.0)

#: Where the badges of a way go: their centre, and the point of the way a leader line
#: joins them to when they had to leave it (None when they sit on it).
Spot = tuple[tuple[float, float], tuple[float, float] | None]


def _badge_candidates(
    ends: tuple[float, float, float, float], w: float, h: float
) -> Iterator[tuple[tuple[float, float], tuple[float, float] | None]]:
    """Spots for a stack of badges w x h on a way: along it, then off it on each side."""
    x1, y1, x2, y2 = ends
    for t in BADGE_AT:
        yield (x1 + (x2 - x1) * t, y1 + (y2 - y1) * t), None
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    nx, ny = -(y2 - y1) / length, (x2 - x1) / length  # a unit normal
    reach = abs(nx) * w / 2 + abs(ny) * h / 2  # half the stack's extent along the normal
    for off in BADGE_OFF:
        for t in BADGE_AT:
            px, py = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
            for side in (1.0, -1.0):
                d = side * (reach + off)
                yield (px + nx * d, py + ny * d), (px, py)


def badge_spots(
    placemap: PlaceMap,
    pos: Mapping[str, XY],
    size: Callable[[tuple[Junction, ...]], tuple[float, float]],
) -> dict[tuple[str, str], Spot]:
    """Where the badges of each way with junctions go (``size``: the width and height of
    the stack of a way's badges): the first spot along it where they cover no card and no
    badge placed before; else the first such spot off the way (a
    leader line joins them to it); else the least covered spot."""
    cards, badges = Boxes(), Boxes()
    for x, y in pos.values():
        cards.add((x - CARD_W / 2 - 4, y - CARD_H / 2 - 4, x + CARD_W / 2 + 4, y + CARD_H / 2 + 4))
    spots: dict[tuple[str, str], Spot] = {}
    for a, b in placemap.adjacent:
        js = placemap.junctions_between(a, b)
        if not js:
            continue
        w, h = size(js)
        best: tuple[float, Spot] | None = None
        for (cx, cy), anchor in _badge_candidates(edge_ends(pos[a], pos[b]), w, h):
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            cost = cards.overlap(box) + badges.overlap(box)
            if best is None or cost < best[0]:
                best = (cost, ((cx, cy), anchor))
            if cost == 0:
                break
        assert best is not None
        (cx, cy), _ = spots[a, b] = best[1]
        badges.add((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
    return spots
