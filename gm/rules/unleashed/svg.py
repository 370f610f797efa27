"""The Unleashed board drawn as SVG for the archive (docs/rules/unleashed.md, What players see):
each square's top card in the seed's colours with its symbol, the snakes, ladders and lampposts in
play, and the pawns. Self-contained like gm.boards.svg's pictures (no ids, every text escaped),
sized by a viewBox to scale down to a phone."""

from __future__ import annotations

from html import escape
from typing import Any

from ...boards.svg import isolated

__all__ = ["board_svg"]

CELL = 44
MARGIN = 8
TITLE = 26
FILL = {"blue": "#dbe9f7", "green": "#d5efd2", "red": "#f6d5d2", "purple": "#e6dcf3"}
INK = {"blue": "#6b8fb5", "green": "#1e6b24", "red": "#a32a1f", "purple": "#5b2d8a"}
ITEM = {"snake": "#c0392b", "ladder": "#2f7d32", "lamppost": "#c79a00"}
PAWNS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def board_svg(view: Any, title: str) -> str:
    """`view` is a views.BoardView."""
    columns = len(view.rows[0]) if view.rows else 0
    width = columns * CELL + 2 * MARGIN
    height = len(view.rows) * CELL + 2 * MARGIN + TITLE
    centre: dict[int, tuple[float, float]] = {}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             f'font-family="sans-serif">',
             f"<title>{escape(isolated(title))}</title>",
             f'<text x="{MARGIN}" y="18" font-size="15" fill="#333">{escape(title)}'
             f'{" (reversed)" if view.reversed else ""}</text>']
    for r, row in enumerate(view.rows):
        for c, cell in enumerate(row):
            x, y = MARGIN + c * CELL, MARGIN + TITLE + r * CELL
            centre[cell.square] = (x + CELL / 2, y + CELL / 2)
            stroke = ' stroke="#000" stroke-width="2.5"' if cell.locked else ' stroke="#999" stroke-width="1"'
            parts.append(f'<g><title>{cell.square}: {escape(cell.card)} ({escape(cell.name)})</title>'
                         f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{FILL[cell.colour]}"{stroke}/>'
                         f'<text x="{x + 3}" y="{y + 11}" font-size="10" fill="#555">{cell.square}</text>'
                         f'<text x="{_f(x + CELL / 2)}" y="{y + 30}" font-size="15" text-anchor="middle" '
                         f'font-weight="bold" fill="{INK[cell.colour]}">{escape(cell.symbol)}</text></g>')
    for item in view.items:
        (x1, y1), (x2, y2) = centre[item.lower], centre[item.upper]
        dash = ' stroke-dasharray="5 4"' if item.kind == "lamppost" else ""
        parts.append(f'<g><title>{escape(item.item)}: {item.kind} {item.lower}-{item.upper}</title>'
                     f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{ITEM[item.kind]}" '
                     f'stroke-width="4" stroke-linecap="round" opacity="0.75"{dash}/>'
                     f'<circle cx="{_f(x2)}" cy="{_f(y2)}" r="4" fill="{ITEM[item.kind]}"/>'
                     f'<text x="{_f((x1 + x2) / 2 + 4)}" y="{_f((y1 + y2) / 2)}" font-size="11" '
                     f'fill="{ITEM[item.kind]}" font-weight="bold">{escape(item.item)}</text></g>')
    for pawn in view.pawns:
        if pawn.finished or pawn.square not in centre:
            continue
        x, y = centre[pawn.square]
        x += (pawn.seat - 1) % 3 * 11 - 11
        y += 12 + (pawn.seat - 1) // 3 * 0
        colour = PAWNS[(pawn.seat - 1) % len(PAWNS)]
        # the first letter or digit: a name may open with a bidi control (U+202E), which
        # alone in a <text> would reorder nothing but mean nothing either
        initial = escape(next((ch for ch in pawn.name if ch.isalnum()), "?").upper())
        parts.append(f'<g><title>{escape(isolated(pawn.name))} on {pawn.square}</title>'
                     f'<circle cx="{_f(x)}" cy="{_f(y)}" r="6" fill="{colour}" stroke="#fff"/>'
                     f'<text x="{_f(x)}" y="{_f(y + 3.5)}" font-size="9" text-anchor="middle" fill="#fff">'
                     f'{initial}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
