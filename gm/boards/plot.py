"""The game-length plot of `gm board analyze --plot`: for each board, the exact
distribution of each analysed ruleset's game side by side, as plain SVG (no plotting
library), self-contained like the board drawing so the archive can show it too."""

from __future__ import annotations

import math
from html import escape

import numpy as np

from .figures import BoardAnalysis, Distribution

PANEL_W, PANEL_H = 360, 200
PAD_L, PAD_R, PAD_T, PAD_B = 46, 12, 40, 34
ROW_TITLE = 26
COLOURS = {"axis": "#444444", "mark": "#222222"}
SERIES = ("#b5642a", "#7a4b9a", "#2f6f9f", "#3b7d3a", "#9a3b4b")  # one per panel, colour-blind safe


def _nice_step(span: float, ticks: int = 5) -> float:
    """A round tick spacing (1, 2 or 5 times a power of ten) giving about `ticks` ticks."""
    raw = max(span / ticks, 1e-12)
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _f(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _panel(x0: float, y0: float, name: str, unit: str, law: Distribution, t_max: int,
           p_max: float, colour: str) -> list[str]:
    """One distribution as bars, with the expectation, median and p90 marked."""
    width, height = PANEL_W - PAD_L - PAD_R, PANEL_H - PAD_T - PAD_B
    left, bottom = x0 + PAD_L, y0 + PANEL_H - PAD_B

    def x(t: float) -> float:
        return left + (t / t_max) * width

    def y(p: float) -> float:
        return bottom - (p / p_max) * height

    expected = "never ends" if law.expected is None else f"{law.expected:.2f}"
    out = [f'<text x="{_f(x0 + PANEL_W / 2)}" y="{_f(y0 + 16)}" text-anchor="middle" '
           f'font-size="13" font-weight="bold">{name}: expected {expected} {unit}, median '
           f"{law.median}, p90 {law.p90}</text>"]
    probabilities = law.probabilities[: t_max + 1]
    bar = max(width / (t_max + 1), 0.5)
    # every bar in one path: a long game has a thousand of them
    bars = []
    for t in np.nonzero(probabilities > 0)[0]:
        bars.append(f"M{_f(x(t) - bar / 2)},{_f(bottom)}V{_f(y(float(probabilities[t])))}"
                    f"h{_f(bar)}V{_f(bottom)}z")
    out.append(f'<path fill="{colour}" fill-opacity="0.8" d="{"".join(bars)}"/>')
    # axes, ticks and labels
    out.append(f'<path d="M{_f(left)},{_f(y0 + PAD_T)} V{_f(bottom)} H{_f(left + width)}" '
               f'fill="none" stroke="{COLOURS["axis"]}"/>')
    step = _nice_step(t_max)
    ticks = []
    for t in np.arange(0, t_max + 1, step):
        ticks.append(f'<line x1="{_f(x(t))}" y1="{_f(bottom)}" x2="{_f(x(t))}" y2="{_f(bottom + 4)}" '
                     f'stroke="{COLOURS["axis"]}"/><text x="{_f(x(t))}" y="{_f(bottom + 16)}" '
                     f'text-anchor="middle">{int(t)}</text>')
    p_step = _nice_step(p_max * 100, 4) / 100
    for p in np.arange(0, p_max + 1e-12, p_step):
        ticks.append(f'<text x="{_f(left - 5)}" y="{_f(y(p) + 4)}" text-anchor="end">'
                     f"{p * 100:.3g}%</text>")
    out.append(f'<g font-size="10" fill="{COLOURS["axis"]}">' + "".join(ticks) + "</g>")
    out.append(f'<text x="{_f(left + width / 2)}" y="{_f(bottom + 30)}" text-anchor="middle" '
               f'font-size="11">{unit} to finish</text>')
    marks = []
    # the median's label to the left of its line, the others to the right: they rarely touch
    for value, label, dash, side in ((law.expected, "mean", "4 3", 1), (law.median, "median", "", -1),
                                     (law.p90, "p90", "1 3", 1)):
        if value is None or value > t_max:
            continue
        anchor = "start" if side > 0 else "end"
        marks.append(f'<line x1="{_f(x(value))}" y1="{_f(y0 + PAD_T - 6)}" x2="{_f(x(value))}" '
                     f'y2="{_f(bottom)}" stroke="{COLOURS["mark"]}" stroke-dasharray="{dash}"/>'
                     f'<text x="{_f(x(value) + 3 * side)}" y="{_f(y0 + PAD_T)}" font-size="10" '
                     f'text-anchor="{anchor}">{label}</text>')
    out.append("<g>" + "".join(marks) + "</g>")
    return out


def length_plot(analyses: list[tuple[str, BoardAnalysis]]) -> str:
    """One row per board (label, analysis), one panel per ruleset analysed (turns), on the
    same scales so the games compare at a glance."""
    order = list(dict.fromkeys(n for _, a in analyses for n in a.rulesets))  # a column each
    names = " and ".join(order) or "none"
    width = max(len(order), 1) * PANEL_W
    height = len(analyses) * (PANEL_H + ROW_TITLE)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" style="max-width:100%;height:auto" '
           f'font-family="Helvetica, Arial, sans-serif">',
           f"<title>Game length: {escape(names)}</title>",
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>']
    for row, (label, analysis) in enumerate(analyses):
        y0 = row * (PANEL_H + ROW_TITLE)
        laws = {name: figures.length for name, figures in analysis.rulesets.items()}
        if not laws:
            continue
        # the x axis runs to the latest p99, the y axis to the highest peak
        t_max = max(max(law.percentile(99) or law.probabilities.size - 1 for law in laws.values()), 1)
        p_max = max(float(law.probabilities[: t_max + 1].max()) for law in laws.values()) or 1.0
        out.append(f'<text x="{width / 2:g}" y="{y0 + 18}" text-anchor="middle" font-size="15" '
                   f'font-weight="bold">{escape(label)}</text>')
        for name, law in laws.items():
            column = order.index(name)
            out += _panel(column * PANEL_W, y0 + ROW_TITLE, name, "turns", law, t_max, p_max * 1.1,
                          SERIES[column % len(SERIES)])
    out.append("</svg>")
    return "\n".join(out) + "\n"
