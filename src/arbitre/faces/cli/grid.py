"""Tables for people that never cut a value (a face): at any console width, piped or not.

:func:`print_grid` prints rows of cells under their columns. It tries, in order:

1. one line a row under the full headers, when every cell fits whole;
2. the same under the columns' short headers, with a legend line saying what they mean;
3. a stacked layout: a row's key cells on a line, then ``header value`` pairs packed
   onto indented lines, a pair never split (a pair longer than the line gets a line of
   its own, which the console does not break: the terminal may fold it, nothing is cut).

A cell is never wrapped inside a table: a value such as ``militia-1`` or ``2/3`` is
printed whole or moves whole to the next line. Cells are rich markup strings.

Rich draws the tables; on a console that shows no styles (output piped to a file or a
program) a table that fits is laid out here at once, in the very characters rich prints
(tests/test_startup.py compares them on seeded tables): rich renders cell by cell, which
took longer than many rulings (issue 16).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.table import Table as RichTable
from rich.text import Text

from arbitre.i18n import T_, current


@dataclass(frozen=True, slots=True)
class Col:
    """A column: its ``header``; ``short``, a shorter header used when the full ones do
    not fit (explained in the legend by ``meaning``, default the header); ``right`` to
    align numbers right."""

    header: str
    short: str = ""
    meaning: str = ""
    right: bool = False


def cell_len(cell: str) -> int:
    """The width on screen of a markup cell."""
    return Text.from_markup(cell).cell_len


def print_grid(
    console: Console,
    cols: Sequence[Col],
    rows: Sequence[Sequence[str]],
    *,
    title: str = "",
    key: int = 1,
    joiner: str = "  ",
) -> str:
    """Print ``rows`` under ``cols`` on ``console`` in the first layout that cuts nothing
    (see the module); ``key`` is how many leading cells name a row in the stacked layout,
    joined by ``joiner``. Returns the layout used: ``full``, ``short`` or ``stacked``."""
    if title:
        console.print(f"[bold]{title}[/]")
    width = console.width
    shorts = any(c.short for c in cols)
    wide = console.options.update(width=10**6)
    contents = _content_widths(console, wide, len(cols), rows)
    for short, gap in ((False, 2), (True, 2), (True, 1)) if shorts else ((False, 2), (False, 1)):
        heads = [c.short if short and c.short else c.header for c in cols]
        widths = [max(_measure(console, wide, h), w) for h, w in zip(heads, contents, strict=True)]
        if _natural(widths, gap) <= width:
            plain = _plain_table(console, cols, rows, short=short, gap=gap, widths=widths)
            if plain is not None:
                console.print(plain, soft_wrap=True)
            else:
                console.print(_table(cols, rows, short=short, gap=gap, widths=widths))
            if short:
                legend = [
                    str(T_("{short}: {meaning}", short=c.short, meaning=c.meaning or c.header))
                    for c in cols
                    if c.short
                ]
                sep = " ; " if current() == "fr" else "; "
                _packed(console, legend, width, indent="", sep=sep, style="dim")
            return "short" if short else "full"
    for row in rows:
        head = joiner.join(c for c in row[:key] if c)
        console.print(f"[bold]{head}[/]")
        pairs = [
            f"[dim]{c.header}[/] {cell}"
            for c, cell in zip(cols[key:], row[key:], strict=True)
            if Text.from_markup(cell).plain.strip()
        ]
        _packed(console, pairs, width, indent="  ", sep="  ")
    return "stacked"


def _table(
    cols: Sequence[Col],
    rows: Sequence[Sequence[str]],
    *,
    short: bool,
    gap: int,
    widths: Sequence[int],
) -> RichTable:
    """The rich table of ``rows``, each column as wide as ``widths`` says (its widest
    cell, measured once by :func:`_content_widths`: rich would measure every cell again
    at each try and at the print)."""
    grid = RichTable(
        box=box.SIMPLE_HEAD, padding=(0, gap - 1, 0, 0), pad_edge=False, show_edge=False
    )
    for c, w in zip(cols, widths, strict=True):
        grid.add_column(
            c.short if short and c.short else c.header,
            justify="right" if c.right else "left",
            no_wrap=True,
            overflow="fold",
            width=w,
        )
    for row in rows:
        grid.add_row(*row)
    return grid


def _plain_table(
    console: Console,
    cols: Sequence[Col],
    rows: Sequence[Sequence[str]],
    *,
    short: bool,
    gap: int,
    widths: Sequence[int],
) -> Text | None:
    """The lines rich prints for :func:`_table` on a console without colours or styles
    (piped, not recorded), laid out at once: rich renders each cell on its own, a
    tenth of a second for a hundred rows (issue 16). None on a console that shows
    styles, or for a cell holding a control character (a new line, a tab): rich's."""
    if console.color_system is not None or console.record:
        return None
    heads = [c.short if short and c.short else c.header for c in cols]
    right = [c.right for c in cols]
    sep = " " * gap  # the cell's right padding (gap - 1) and the rule between columns
    lines = []
    read: dict[str, tuple[str, int]] = {}  # each markup cell's plain text and width
    for row in (heads, *rows):
        cells = []
        for cell, w, r in zip(row, widths, right, strict=True):
            if cell not in read:
                text = console.render_str(cell)
                if any(ch < " " or ch == "\x7f" for ch in text.plain):
                    return None
                read[cell] = text.plain, text.cell_len
            plain, n = read[cell]
            pad = " " * (w - n)
            cells.append(pad + plain if r else plain + pad)
        lines.append(sep.join(cells))
        if row is heads:
            lines.append("\u2500" * (sum(widths) + gap * (len(widths) - 1)))
    return Text("\n".join(lines))


def _measure(console: Console, wide: ConsoleOptions, cell: str) -> int:
    """The width rich gives the markup ``cell`` in a table column without a limit (its
    widest line)."""
    return Measurement.get(console, wide, cell).maximum


def _content_widths(
    console: Console, wide: ConsoleOptions, n: int, rows: Sequence[Sequence[str]]
) -> list[int]:
    """The width of each of the ``n`` columns' widest cell in ``rows`` (0 for none)."""
    widths = [0] * n
    measured: dict[str, int] = {}  # a cell written again ("yes", an id) measured once
    for row in rows:
        for i, cell in enumerate(row):
            w = measured.get(cell)
            if w is None:
                w = measured[cell] = _measure(console, wide, cell)
            widths[i] = max(widths[i], w)
    return widths


def _natural(widths: Sequence[int], gap: int) -> int:
    """The width a table of columns ``widths`` wide takes, as rich measures it: each
    column and its right padding (``gap - 1``, none after the last), a rule between
    columns (``SIMPLE_HEAD`` without edges)."""
    n = len(widths)
    return sum(widths) + (gap - 1) * max(n - 1, 0) + max(n - 1, 0)


def _packed(
    console: Console, items: Sequence[str], width: int, *, indent: str, sep: str, style: str = ""
) -> None:
    """``items`` on lines of at most ``width`` cells, joined by ``sep``, never split."""
    lines: list[str] = []
    line, used = "", 0
    for item in items:
        n = cell_len(item)
        if line and used + len(sep) + n > width:
            lines.append(line)
            line, used = "", 0
        line, used = (
            (line + sep + item, used + len(sep) + n) if line else (indent + item, len(indent) + n)
        )
    if line:
        lines.append(line)
    for text in lines:
        console.print(f"[{style}]{text}[/]" if style else text, soft_wrap=True)
