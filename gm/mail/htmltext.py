"""HTML mail to the plain lines a reader sees (docs/rules/, What is read: HTML-only mail
must work).

Webmail and phones often send HTML alone; this turns it into lines the order language can
read: blocks and <br> end lines, <blockquote> becomes '> ' quotes (so a quoted turn report
is skipped like a quote in plain text), hidden elements are dropped. It never raises."""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["html_to_text"]


def html_to_text(html: str) -> str:
    """Plain lines from an HTML body, as a reader would see them.

    Block elements and <br> end lines; entities are decoded; <blockquote> content comes
    out as '> ' quoted lines (nested ones as '> > '), so a quoted turn report is skipped
    like a '>' quote in plain text; script, style, head and title are dropped; spaces in
    text collapse as a browser does (<pre> keeps its line breaks).
    """
    converter = _HtmlText()
    try:
        converter.feed(html)
        converter.close()
    except Exception:  # the parser's failure leaves what it read so far
        pass
    return converter.text()


_BLOCKS = {
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
}
_HIDDEN = {"script", "style", "head", "title", "template", "noscript", "xml"}
_COLLAPSE = re.compile(r"[ \t\n\r\f]+")


class _HtmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str]] = []
        self.current: list[str] = []
        self.depth = 0  # blockquote nesting
        self.line_depth = 0
        self.hidden = 0
        self.pre = 0

    def newline(self) -> None:
        self.lines.append((self.line_depth, "".join(self.current)))
        self.current = []
        self.line_depth = self.depth

    def block(self) -> None:
        # Whitespace between two blocks (the newline after </p>) shows as nothing.
        if "".join(self.current).strip():
            self.newline()
        self.current = []
        self.line_depth = self.depth

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.hidden = 0  # </head> may be left out: <body> ends it
        elif tag in _HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self.newline()
        elif tag in _BLOCKS:
            self.block()
            if tag == "blockquote":
                self.depth += 1
                self.line_depth = self.depth
            elif tag == "pre":
                self.pre += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.newline()
        elif tag in _BLOCKS:
            self.block()

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            self.block()
            if tag == "blockquote":
                self.depth = max(0, self.depth - 1)
                self.line_depth = self.depth
            elif tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.pre:
            first, *rest = data.replace("\r\n", "\n").split("\n")
            self.current.append(first)
            for line in rest:
                self.newline()
                self.current.append(line)
        else:
            self.current.append(_COLLAPSE.sub(" ", data))

    def text(self) -> str:
        if self.current:
            self.newline()
        out: list[str] = []
        for depth, line in self.lines:
            line = line.replace("\u00a0", " ").strip()
            if depth:
                line = ("> " * depth + line).rstrip()
            if line or (out and out[-1]):
                out.append(line)
        return "\n".join(out).strip("\n") + "\n" if out else ""
