"""Mail gm writes: rendered from templates/mail/ (every word a player reads lives there),
built as multipart/alternative with a text and an HTML part, and queued in the outbox."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, make_msgid, parseaddr
from functools import cache
from typing import Any

import jinja2

from .clock import iso
from .resources import shipped


@cache
def _environment(kind: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(shipped("templates"))),
        autoescape=(kind == "html"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.do"],  # lets a template build a small list (welcome.html)
    )
    env.filters["square"] = lambda s: "Start" if s == 0 else str(s)
    env.filters["ordinal"] = ordinal
    env.filters["mailto"] = mailto
    env.globals["once"] = _once(env, "txt" if kind == "text" else "html")
    return env


def _once(env: jinja2.Environment, ext: str):
    """`once("boards", view)`: a public part of the turn report (a macro of mail/_turn),
    rendered once per turn and reused in every player's copy. Each copy lists every
    player, so rendering it afresh per player would make a turn cost players squared."""
    cache: dict[tuple[str, int], tuple[Any, Any]] = {}

    def once(name: str, view: Any) -> Any:
        hit = cache.get((name, id(view)))
        if hit is None or hit[0] is not view:  # the view is kept, so its id is not reused
            if len(cache) > 64:
                cache.clear()
            module = env.get_template(f"mail/_turn.{ext}").module
            hit = cache[(name, id(view))] = (view, getattr(module, name)(view))
        return hit[1]

    return once


def transfer_encoding(body: str) -> str:
    """7bit for ASCII with lines SMTP accepts (readable as it travels); else base64, whose
    encoder is C, where the email package's quoted-printable one is slow Python that made
    a 500-player turn's reports take most of a minute."""
    if body.isascii() and max(map(len, body.splitlines()), default=0) <= 998:
        return "7bit"
    return "base64"


def mailto(address: str, subject: str, body: str) -> str:
    """A `mailto:` link that opens a reply with `subject` and `body` filled in (RFC 6068:
    percent-encoded UTF-8, line breaks as %0D%0A)."""
    from urllib.parse import quote

    body = "\r\n".join(line.rstrip() for line in body.strip("\n").splitlines())
    return f"mailto:{quote(address, safe='@')}?subject={quote(subject, safe='')}&body={quote(body, safe='')}"


def render_text(template: str, context: Mapping[str, Any]) -> tuple[str, str]:
    """(first line after its `Label:`, the rest) of a plain-text template such as
    `calendar/deadline.txt`, whose first line is `Summary: ...`."""
    text = _environment("text").get_template(template).render(context)
    first, _, body = text.partition("\n")
    return first.partition(":")[2].strip(), body.strip("\n")


def ordinal(n: int | None) -> str:
    if n is None:
        return "-"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def render(template: str, context: Mapping[str, Any]) -> tuple[str, str, str]:
    """(subject, text, html) of `templates/mail/<template>`: the text template's first line
    is `Subject: ...`."""
    text = _environment("text").get_template(f"mail/{template}.txt").render(context)
    html = _environment("html").get_template(f"mail/{template}.html").render(context)
    first, _, body = text.partition("\n")
    if not first.startswith("Subject:"):
        raise ValueError(f"templates/mail/{template}.txt must start with a Subject: line")
    # templates read better with blank lines around blocks; mail reads better without runs
    body = re.sub(r"\n{3,}", "\n\n", body.lstrip("\n"))
    return first[len("Subject:") :].strip(), body, html


def compose(
    *,
    sender: str,
    to: str,
    template: str,
    context: Mapping[str, Any],
    now: datetime,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    auto_reply: bool = False,
    attachments: Sequence[tuple[bytes, str, str, str]] = (),
) -> EmailMessage:
    """One message. `attachments` are (data, maintype, subtype, filename)."""
    subject, text, html = render(template, context)
    message = EmailMessage()
    message["From"] = sender
    name, address = parseaddr(to)
    message["To"] = formataddr((name, address)) if name else address
    message["Subject"] = subject
    message["Date"] = format_datetime(now)
    domain = parseaddr(sender)[1].rpartition("@")[2] or "localhost"
    message["Message-ID"] = make_msgid(domain=domain)
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = " ".join([*references, in_reply_to][-10:]) if references else in_reply_to
    if auto_reply:
        # RULES.md 3: every reply says it is automatic, so no well-behaved robot answers it
        message["Auto-Submitted"] = "auto-replied"
    message["X-Mailer"] = "gm"
    message.set_content(text, cte=transfer_encoding(text))
    message.add_alternative(html, subtype="html", cte=transfer_encoding(html))
    for data, maintype, subtype, filename in attachments:
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    return message


def queue(
    db: Any,
    message: EmailMessage,
    *,
    kind: str,
    now: datetime,
    turn: int | None = None,
    player: str | None = None,
) -> int:
    """Put a message in the outbox table (inside the caller's transaction)."""
    from email import policy

    row = db["outbox"].insert(
        {
            "kind": kind,
            "turn": turn,
            "player": player,
            "recipient": parseaddr(str(message["To"]))[1],
            "message_id": str(message["Message-ID"]),
            "subject": str(message["Subject"]),
            "raw": message.as_bytes(policy=policy.SMTP),
            "queued_at": iso(now),
            "status": "queued",
            "attempts": 0,
        }
    )
    return row.last_pk
