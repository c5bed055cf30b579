"""Compact replies: the difference between two JSON documents, which the page applies to
the answer it holds (``static/app.js``, ``applyPatch``).

While a model is dragged, most rulings of the view do not change from one move to the
next: a move's answer is sent as a patch of the previous one (often a few hundred bytes
instead of tens of kilobytes at 200 models), and the page rebuilds the same document.

A patch node is ``{"=": value}`` (the value replaced), ``{"o": {key: node}, "x": [keys]}``
(an object's changed keys, and those removed) or ``{"a": {index: node}}`` (an array of
the same length, its changed items). :func:`diff` and :func:`apply` are inverse:
``apply(a, diff(a, b)) == b`` for any JSON values ``a`` and ``b``.
"""

from __future__ import annotations

import copy
from typing import Any

#: A patch node (see the module's docstring).
Patch = dict[str, Any]


def diff(old: Any, new: Any) -> Patch | None:
    """The patch from ``old`` to ``new`` (``None`` when they are equal). Objects and
    arrays are compared once, part by part, as they are walked."""
    if old is new:
        return None
    if type(old) is not type(new):
        return {"=": new}
    if isinstance(new, dict):
        changed: dict[str, Patch] = {}
        for key, value in new.items():
            if key not in old:
                changed[key] = {"=": value}
                continue
            node = diff(old[key], value)
            if node is not None:
                changed[key] = node
        removed = [k for k in old if k not in new]
        if not changed and not removed:
            return None
        node_o: Patch = {"o": changed}
        if removed:
            node_o["x"] = removed
        return node_o
    if isinstance(new, list):
        if len(old) != len(new):
            return {"=": new}
        items: dict[str, Patch] = {}
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            node = diff(a, b)
            if node is not None:
                items[str(i)] = node
        return {"a": items} if items else None
    return None if old == new else {"=": new}


def apply(doc: Any, node: Patch | None) -> Any:
    """``doc`` with the patch ``node`` applied (a new value; ``doc`` is not changed)."""
    if node is None:
        return doc
    if "=" in node:
        return copy.deepcopy(node["="])
    if "o" in node:
        out = {k: v for k, v in doc.items() if k not in node.get("x", ())}
        for key, sub in node["o"].items():
            out[key] = apply(doc.get(key), sub)
        return out
    out_list = list(doc)
    for index, sub in node["a"].items():
        out_list[int(index)] = apply(out_list[int(index)], sub)
    return out_list
