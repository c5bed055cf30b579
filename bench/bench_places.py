"""Benchmark: maps of places (P1-P6) against plain baselines run in this process.

- ``move`` (P3-P4) on a generated map of 1,000 places and 3,000 adjacencies, for 20
  units: arbitre's ruling (through ``arbitre.rules.ask``, every way with its steps and
  reasons), against a plain networkx Dijkstra per unit (fewest points only: no exhaustion,
  no ways, no reasons) and against the brute force the tests use as an oracle (every
  simple path within the points, its Pareto front per place); the fronts are checked
  equal to the brute force's.
- The parent chains (P2): loading a chain of places, against a plain walk of each place's
  chain to its root.
- The picture's layout: 5,000 places without ``at`` (a chain, a grid, a random sparse
  map, no adjacency), with scipy blocked (the layout must never need it), against
  networkx's spring layout on the largest map it lays out without scipy (499 places).

Usage: ``python bench/bench_places.py [--quick]``. Times are the best of a few runs.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

sys.modules["scipy"] = None  # type: ignore[assignment]  # any import of scipy now fails

import networkx as nx  # noqa: E402

from arbitre.faces.svg.places import layout, render_places  # noqa: E402
from arbitre.places import PlaceMap, places_from_dict  # noqa: E402
from arbitre.rules import ask  # noqa: E402
from arbitre.rules import places as rules  # noqa: E402

TYPES = [None, None, "Forêt", "Forêt lugubre", "Plaine", "Rue", "Ruine", "Taverne", "Ronce"]
JUNCTIONS = ["Porte", "Brume", "Barricade petite", "Barricade grande", "Ronce/pieux"]


def best_of(repeats: int, run: Callable[[], Any]) -> tuple[float, Any]:
    best, result = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - t0)
    return best, result


def generated_map(seed: int, places: int, adjacencies: int, units: int) -> dict[str, Any]:
    """A random connected map: catalogue types, some stated encumbrances, junctions on a
    fifth of the ways, units of two sides with 8 movement points."""
    rng = random.Random(seed)
    docs: list[dict[str, Any]] = []
    for i in range(places):
        p: dict[str, Any] = {"id": f"p{i}"}
        kind = rng.choice(TYPES)
        if kind:
            p["type"] = kind
        if rng.random() < 0.3:
            p["encumbrance"] = rng.randint(1, 5)
        docs.append(p)
    pairs = {(rng.randrange(i), i) for i in range(1, places)}  # a random spanning tree
    while len(pairs) < adjacencies:
        a, b = sorted(rng.sample(range(places), 2))
        pairs.add((a, b))
    adjacent: list[list[Any]] = []
    for a, b in sorted(pairs):
        way: list[Any] = [f"p{a}", f"p{b}"]
        if rng.random() < 0.2:
            way.append({"junction": rng.choice(JUNCTIONS)})
        adjacent.append(way)
    team = [
        {
            "id": f"u{k}",
            "side": "red" if k % 2 else "blue",
            "place": f"p{rng.randrange(places)}",
            "movement": 8,
            "obstruction": rng.randint(0, 2),
        }
        for k in range(units)
    ]
    return {"arbitre": 1, "places": docs, "adjacent": adjacent, "units": team}


def dijkstra(pm: PlaceMap, costs: dict[tuple[str, str], int], unit: str) -> dict[str, float]:
    """The plain baseline: fewest points to each place within reach."""
    u = pm.unit(unit)
    assert u.movement is not None
    found: dict[str, float] = nx.single_source_dijkstra_path_length(
        pm.graph, u.place, cutoff=u.movement, weight=lambda a, b, _: costs[a, b]
    )
    return found


def brute_force(
    pm: PlaceMap, costs: dict[tuple[str, str], int], unit: str, points: int | None = None
) -> dict[str, set[tuple[int, int]]]:
    """Every simple path within the points (depth first), the Pareto front of (exhaustion,
    points left) per place: the oracle of tests/test_places.py, as one walk."""
    mover = pm.unit(unit)
    assert mover.movement is not None
    budget = mover.movement if points is None else points
    opts = rules.PlacesOptions()
    leave = {p.id: rules.leaving(pm, mover, p.id, opts)[0] for p in pm.places}
    labels: dict[str, set[tuple[int, int]]] = {}
    stack = [(mover.place, 0, 0, frozenset([mover.place]))]
    while stack:
        here, spent, exhaustion, seen = stack.pop()
        if here != mover.place:
            labels.setdefault(here, set()).add((exhaustion, budget - spent))
        for there in pm.graph.neighbors(here):
            cost = costs[here, there]
            if there not in seen and spent + cost <= budget:
                stack.append((there, spent + cost, exhaustion + leave[here], seen | {there}))
    return {
        p: {
            (e, left)
            for e, left in found
            if not any(e2 <= e and l2 >= left and (e2, l2) != (e, left) for e2, l2 in found)
        }
        for p, found in labels.items()
    }


def bench_move(quick: bool) -> None:
    doc = generated_map(17, places=1000, adjacencies=3000, units=40)
    t_load, pm = best_of(1, lambda: places_from_dict(doc))
    costs = {(a, b): rules.step_cost(pm, a, b) for x, y in pm.adjacent for a, b in ((x, y), (y, x))}
    movers = [u.id for u in pm.units][: 8 if quick else 20]
    ours, plain, brute, ways = [], [], [], []
    for unit in movers:
        t, answer = best_of(3, partial(ask, pm, "move", unit=unit))
        ours.append(t)
        ways.append(len(answer.ruling.ways))
        plain.append(best_of(3, partial(dijkstra, pm, costs, unit))[0])
        t, front = best_of(1, partial(brute_force, pm, costs, unit))
        brute.append(t)
        got: dict[str, set[tuple[int, int]]] = {}
        for w in answer.ruling.ways:
            got.setdefault(w.place, set()).add((w.exhaustion, w.left))
        assert got == front, unit  # the same fronts as the brute force
    med = statistics.median
    print(
        f"move, 1,000 places / 3,000 adjacencies / {len(pm.units)} units (load {t_load:.2f} s), "
        f"{len(movers)} movers, 8 points, median {med(ways):.0f} ways a ruling:"
    )
    print(
        f"  arbitre move (ask, full ruling)   median {med(ours) * 1e3:7.2f} ms, "
        f"max {max(ours) * 1e3:.2f} ms"
    )
    print(
        f"  plain networkx Dijkstra per unit  median {med(plain) * 1e3:7.2f} ms"
        f"   arbitre / Dijkstra = {med(ours) / med(plain):.1f}"
    )
    print(
        f"  all simple paths within points    median {med(brute) * 1e3:7.2f} ms"
        f"   brute force / arbitre = {med(brute) / med(ours):.1f}"
    )
    print("  more points (5 movers): arbitre against all simple paths, median ms")
    for points in (12, 16, 20):
        ours, brute = [], []
        for unit in movers[:5]:
            t, answer = best_of(1, partial(ask, pm, "move", unit=unit, points=points))
            ours.append(t)
            brute.append(best_of(1, partial(brute_force, pm, costs, unit, points))[0])
        print(
            f"    {points:>2} points: arbitre {med(ours) * 1e3:8.2f}, all simple paths "
            f"{med(brute) * 1e3:9.2f}, brute force / arbitre = {med(brute) / med(ours):.1f}"
        )


def chain_doc(n: int) -> dict[str, Any]:
    places = [{"id": "p0", "type": "Forêt"}] + [
        {"id": f"p{i}", "parent": f"p{i - 1}"} for i in range(1, n)
    ]
    adjacent = [[f"p{i - 1}", f"p{i}"] for i in range(1, n)]
    units = [
        {"id": "last", "side": "a", "place": f"p{n - 1}", "movement": 8},
        {"id": "first", "side": "b", "place": "p0"},
    ]
    return {"arbitre": 1, "places": places, "adjacent": adjacent, "units": units}


def plain_walk(doc: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """The plain baseline: each place's chain walked to its root, a set against loops."""
    parent = {p["id"]: p.get("parent") for p in doc["places"]}
    out = {}
    for ident in parent:
        chain, seen, node = [], set(), parent[ident]
        while node is not None and node not in seen:
            seen.add(node)
            chain.append(node)
            node = parent.get(node)
        out[ident] = tuple(chain)
    return out


def bench_chains(quick: bool) -> None:
    n = 2000 if quick else 5000
    doc = chain_doc(n)
    t_ours, pm = best_of(3, lambda: places_from_dict(doc))
    t_walk, _ = best_of(1, lambda: plain_walk(doc))
    t_place, r = best_of(3, lambda: ask(pm, "place", place=f"p{n - 1}"))
    t_move, _ = best_of(3, lambda: ask(pm, "move", unit="last"))
    t_shot, _ = best_of(3, lambda: ask(pm, "shot", shooter="last", target="first"))
    print(f"parent chain of {n:,} places (lineage of the last: {len(r.ruling.lineage):,}):")
    print(
        f"  arbitre load (every check, every chain) {t_ours * 1e3:8.1f} ms; a plain walk of "
        f"each chain {t_walk * 1e3:8.1f} ms; walk / load = {t_walk / t_ours:.1f}"
    )
    print(
        f"  place {t_place * 1e3:.2f} ms, move {t_move * 1e3:.2f} ms, shot across the "
        f"chain {t_shot * 1e3:.1f} ms"
    )


def layout_doc(kind: str, n: int, seed: int = 1) -> dict[str, Any]:
    rng = random.Random(seed)
    pairs: set[tuple[int, int]] = set()
    if kind == "chain":
        pairs = {(i - 1, i) for i in range(1, n)}
    elif kind == "grid":
        w = int(math.sqrt(n))
        pairs = {(i, i + 1) for i in range(n - 1) if (i + 1) % w}
        pairs |= {(i, i + w) for i in range(n - w)}
    elif kind == "random":
        pairs = {(rng.randrange(i), i) for i in range(1, n)}
        while len(pairs) < 1.5 * n:
            a, b = sorted(rng.sample(range(n), 2))
            pairs.add((a, b))
    return {
        "arbitre": 1,
        "places": [{"id": f"p{i}"} for i in range(n)],
        "adjacent": [[f"p{a}", f"p{b}"] for a, b in sorted(pairs)],
    }


def bench_layout(quick: bool) -> None:
    n = 2000 if quick else 5000
    print(f"layout of {n:,} places without `at` (scipy blocked):")
    for kind in ("chain", "grid", "random", "none"):
        pm = places_from_dict(layout_doc(kind, n))
        t, pos = best_of(3, partial(layout, pm))
        assert len(pos) == n
        print(f"  {kind:<7} {t * 1e3:8.1f} ms")
    pm = places_from_dict(layout_doc("random", n))
    t_render, svg = best_of(1, lambda: render_places(pm))
    print(f"  render the random map to SVG: {t_render:.2f} s ({len(svg) / 1e6:.1f} MB)")
    small = places_from_dict(layout_doc("random", 499))
    t_ours, _ = best_of(3, lambda: layout(small))
    t_spring, _ = best_of(1, lambda: nx.spring_layout(small.graph, seed=3))
    print(
        f"  499 places: arbitre {t_ours * 1e3:.1f} ms, networkx spring_layout (numpy, no "
        f"cards kept apart) {t_spring * 1e3:.1f} ms; spring / arbitre = {t_spring / t_ours:.1f}"
    )
    print(f"  scipy imported: {'yes' if sys.modules.get('scipy') else 'no'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer runs")
    args = parser.parse_args()
    ask(places_from_dict(chain_doc(3)), "move", unit="last")  # imports and caches warm
    bench_move(args.quick)
    bench_chains(args.quick)
    bench_layout(args.quick)


if __name__ == "__main__":
    main()
