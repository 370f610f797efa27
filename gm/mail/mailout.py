"""Mail gm writes: rendered from templates (every word a player reads lives there), built
as multipart/alternative with a text and an HTML part, and queued in the outbox.

Each ruleset words its own mail. A mail of kind `report` in a campaign of ruleset `classic`
is rendered from `mail/classic/report.txt` and `.html` when they exist, else from the
generic `mail/report.txt` and `.html`, which speak of no ruleset's concepts; likewise
`calendar/<ruleset>/deadline.txt` before `calendar/deadline.txt`. A ruleset derived from
another (a GM's house rules) falls back to that one's templates before the generic ones.
The ruleset is named by the context (`ruleset`: every mail context says which campaign it
is about). A ruleset kept outside gm brings its templates in the folder its `templates`
names, laid out the same and searched before gm's own.
"""

from __future__ import annotations

import binascii
import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from email.generator import Generator
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime, formataddr, make_msgid, parseaddr
from functools import cache
from typing import Any

import jinja2
import jinja2.ext

from ..clock import iso
from ..resources import rules_file, shipped

# A subject longer than this is cut at a word: mail apps show about 60 characters, and a
# header line past 78 is folded, so a longer one only makes the header harder to read.
MAX_SUBJECT = 140
# The first line of a mail text template (`Subject: ...`) or a calendar text (`Summary:
# ...`): it ends where its line ends, whatever tag closes it (_FirstLineKeepsItsNewline).
_LABEL = re.compile(r"\b(?:Subject|Summary):")


class _FirstLineKeepsItsNewline(jinja2.ext.Extension):
    """trim_blocks eats the newline after a block tag, so a Subject line ending in `{%
    endif %}` ran into the body ("How to write ordersOrders are plain lines ..."). The
    first `Subject:`/`Summary:` line's closing tag is written `+%}` (Jinja's "keep this
    newline"), so no template can lose it, however its first line ends."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        if name is not None and not name.endswith(".txt"):
            return source
        label = _LABEL.search(source)
        if label is None:
            return source
        end = source.find("\n", label.end())
        end = len(source) if end < 0 else end
        line = source[:end].rstrip(" \t")
        if not line.endswith("%}") or line.endswith(("+%}", "-%}")):
            return source
        return line[:-2] + "+%}" + source[end:]


class _Templates(jinja2.BaseLoader):
    """gm's templates/, with a ruleset's own folder (`Ruleset.templates`) first for the
    names under its prefix (`mail/<ruleset>/...`, `calendar/<ruleset>/...`)."""

    def __init__(self) -> None:
        self.shipped = jinja2.FileSystemLoader(str(shipped("templates")))

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str | None, Any]:
        parts = template.split("/")
        folder = _ruleset_folder(parts[1]) if len(parts) > 2 else None
        if folder is not None:
            try:
                source, path, uptodate = jinja2.FileSystemLoader(folder).get_source(environment, template)
            except jinja2.TemplateNotFound:
                pass
            else:
                # a ruleset registered again with another folder must not get the old text
                return source, path, lambda: _ruleset_folder(parts[1]) == folder and uptodate()
        return self.shipped.get_source(environment, template)


def _ruleset_folder(name: str) -> str | None:
    from ..rules.registry import UnknownRuleset, find_ruleset

    try:
        folder = find_ruleset(name).templates
    except UnknownRuleset:
        return None
    return str(folder) if folder is not None else None


@cache
def environment(kind: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=_Templates(),
        autoescape=(kind == "html"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # `do` lets a template build a small list (welcome.html)
        extensions=["jinja2.ext.do", _FirstLineKeepsItsNewline],
    )
    env.filters["square"] = lambda s: "Start" if s == 0 else str(s)
    env.filters["ordinal"] = ordinal
    env.filters["mailto"] = mailto
    env.filters["turn_page"] = _turn_page
    env.globals["once"] = _once()
    # `{% import partial("_order.html") as o %}`: a part looked up for the mail's ruleset
    # like a whole mail, so a generic mail shows each ruleset's own order without a copy
    env.globals["partial"] = jinja2.pass_context(lambda context, name: find_template(kind, "mail", name, context))
    return env


def _turn_page(view: Any) -> str:
    """The archive's page of the turn a report tells (its file name, as the archive names it)."""
    from ..publish.archive import turn_page

    return turn_page(view)


# Mail that carries the ruleset's rules, so a player without an archive still has them
RULES_ATTACHED = ("help", "welcome")


def _once():
    """`once(t, "boards", view)`: a public part of the turn report (the macro `boards` of
    the imported module `t`), rendered once per turn and reused in every player's copy.
    Each copy lists every player, so rendering it afresh per player would make a turn cost
    players squared."""
    cache: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def once(module: Any, name: str, view: Any) -> Any:
        key = (module.__name__, name, id(view))
        hit = cache.get(key)
        if hit is None or hit[0] is not view:  # the view is kept, so its id is not reused
            if len(cache) > 64:
                cache.clear()
            hit = cache[key] = (view, getattr(module, name)(view))
        return hit[1]

    return once


def find_template(kind: str, folder: str, name: str, context: Mapping[str, Any]) -> jinja2.Template:
    """`folder/<ruleset>/name` for the context's ruleset, then for each ruleset it derives
    from, else the generic `folder/name`."""
    ruleset = context.get("ruleset")
    if not isinstance(ruleset, str) or not ruleset:
        raise ValueError(f"the context for {folder}/{name} must name its ruleset")
    names = [f"{folder}/{r}/{name}" for r in lineage(ruleset)]
    return environment(kind).select_template([*names, f"{folder}/{name}"])


def lineage(name: str) -> tuple[str, ...]:
    """The ruleset's name, then the names of those it derives from: a GM's house rules
    derived from a built-in ruleset are worded as it is wherever they have no templates of their own
    (the archive's rule, gm.archive.template_rulesets)."""
    from ..publish.archive import template_rulesets
    from ..rules.registry import UnknownRuleset, find_ruleset

    try:
        return template_rulesets(find_ruleset(name))
    except UnknownRuleset:
        return (name,)


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
    `calendar/deadline.txt` (the ruleset's own first), whose first line is `Summary: ...`."""
    folder, _, name = template.partition("/")
    text = find_template("text", folder, name, context).render(context)
    first, _, body = text.partition("\n")
    return first.partition(":")[2].strip(), body.strip("\n")


def ordinal(n: int | None) -> str:
    if n is None:
        return "-"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def render(template: str, context: Mapping[str, Any]) -> tuple[str, str, str]:
    """(subject, text, html) of the mail `template` (report, ack...) of the context's
    ruleset: `mail/<ruleset>/<template>`, else `mail/<template>`. The text template's first
    line is `Subject: ...`."""
    text_template = find_template("text", "mail", f"{template}.txt", context)
    text = text_template.render(context)
    html = find_template("html", "mail", f"{template}.html", context).render(context)
    first, _, body = text.partition("\n")
    if not first.startswith("Subject:"):
        raise ValueError(f"templates/{text_template.name} must start with a Subject: line")
    # templates read better with blank lines around blocks; mail reads better without runs
    body = re.sub(r"\n{3,}", "\n\n", body.lstrip("\n"))
    return subject_line(first[len("Subject:") :]), body, html


def subject_line(text: str) -> str:
    """One line of at most MAX_SUBJECT characters: runs of white space made one space, and
    a longer one cut after a whole word (the campaign tag stays first)."""
    text = " ".join(text.split())
    if len(text) <= MAX_SUBJECT:
        return text
    cut = text[: MAX_SUBJECT - 3].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "..."


def references_header(parent_references: Sequence[str], parent: str) -> str:
    """RFC 5322 3.6.4: the parent's References (or, lacking them, its In-Reply-To) then
    the parent's Message-ID, each id once, in order. The ten last at most: the thread's
    first message and the nearest ones say most about where a reply belongs."""
    ids = list(dict.fromkeys([*parent_references, parent]))
    if len(ids) > 10:
        ids = ids[:1] + ids[-9:]
    return " ".join(ids)


class _MailPolicy(EmailPolicy):
    """SMTP's policy, but a plain-ASCII Subject folds between its words with at least one
    on the `Subject:` line. The email package moves a subject of 70 to 77 characters whole
    to the next line, leaving `Subject:` alone, which some mail apps show as no subject."""

    def _fold(self, name: str, value: Any, refold_binary: bool = False) -> str:
        text = str(value)
        if name.lower() != "subject" or not text.isascii() or not text.isprintable():
            return super()._fold(name, value, refold_binary)
        limit = self.max_line_length or 78
        lines = [f"{name}:"]
        for word in text.split():
            # a word too long for any line stays on the line it starts (never alone: a
            # line that is only `Subject:` or only white space is a broken header)
            if len(lines[-1]) + 1 + len(word) > limit and lines[-1] not in (f"{name}:", ""):
                lines.append("")
            lines[-1] += " " + word
        return self.linesep.join(lines) + self.linesep


MAIL_POLICY = _MailPolicy(linesep="\r\n")

# A body at least this long is encoded once with C-speed calls and spliced into the
# serialised message (_Spliced) instead of being set on it: the email package writes a
# body line by line in Python and scans all of it for each boundary, which made a
# 500-player turn's reports spend half their time in `as_bytes`.
SPLICE_FROM = 2048
# what `email.contentmanager` puts on a line of base64: max_line_length // 4 * 3 bytes
_BASE64_BYTES = 78 // 4 * 3


class _Spliced(EmailMessage):
    """A message whose long bodies are placeholders (one short line each), with their
    encoded bytes kept beside it: `serialise` writes the small message and splices the
    bodies in, byte for byte what the email package writes for the whole message
    (tests/test_mail_splice.py). Only `queue` serialises one."""

    bodies: list[tuple[bytes, bytes]]  # (the placeholder's encoded line, the body's bytes)


def _set_body(message: EmailMessage, text: str, set_part: Any) -> None:
    """Set a text body through `set_part(content, cte)` (set_content, add_alternative,
    add_attachment), as a placeholder for a long one when the message can splice."""
    cte = transfer_encoding(text)
    if not isinstance(message, _Spliced) or len(text) < SPLICE_FROM:
        set_part(text, cte)
        return
    token = f"gm-body-{uuid.uuid4().hex}"
    set_part(token, cte)
    # the placeholder as the email package writes it: one line either way
    message.bodies.append((encoded_body(token, cte), encoded_body(text, cte)))


def encoded_body(text: str, cte: str) -> bytes:
    """A text body as the email package writes it with MAIL_POLICY: `set_content` splits
    it into lines (bytes.splitlines) and the generator ends each with CRLF; base64 comes
    57 bytes a line of the lines joined by LF."""
    lines = text.encode("ascii" if cte == "7bit" else "utf-8").splitlines()
    if cte == "7bit":
        return b"\r\n".join(lines) + b"\r\n"
    data = b"\n".join(lines) + b"\n"
    return b"".join(binascii.b2a_base64(data[i : i + _BASE64_BYTES]) for i in range(0, len(data), _BASE64_BYTES)
                    ).replace(b"\n", b"\r\n")


def serialise(message: EmailMessage) -> bytes:
    """The message's bytes as sent (MAIL_POLICY), with a _Spliced message's bodies in place."""
    bodies = getattr(message, "bodies", ())
    for part in message.walk():
        if bodies and part.is_multipart() and not part.get_boundary():
            # the generator would check its boundary against the placeholders only
            part.set_boundary(_boundary([body for _, body in bodies]))
    raw = message.as_bytes(policy=MAIL_POLICY)
    pieces = []
    for placeholder, body in bodies:
        head, found, raw = raw.partition(placeholder)
        assert found, "a body placeholder is missing from the message"
        pieces += (head, body)
    return b"".join(pieces) + raw


def _boundary(bodies: Sequence[bytes]) -> str:
    """A boundary as the email package draws one, that stands in none of the bodies."""
    while True:
        boundary = Generator._make_boundary()
        if not any(boundary.encode("ascii") in body for body in bodies):
            return boundary


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
    attachments: Sequence[tuple[bytes | str, str, str, str]] = (),
) -> EmailMessage:
    """One message. `attachments` are (data, maintype, subtype, filename), text given as
    str travelling as 7bit or base64 like the bodies (transfer_encoding). Help and
    welcome mail also carry the ruleset's rules (RULES_ATTACHED); their templates say so
    through `rules_attached`, the attachment's name, or None."""
    rules = None
    if template in RULES_ATTACHED:
        rules = rules_file(lineage(str(context.get("ruleset", ""))))
        context = {**context, "rules_attached": f"rules-{context['ruleset']}.md" if rules else None}
    subject, text, html = render(template, context)
    message = _Spliced()
    message.bodies = []
    message["From"] = sender
    name, address = parseaddr(to)
    message["To"] = formataddr((name, address)) if name else address
    message["Subject"] = subject
    message["Date"] = format_datetime(now)
    domain = parseaddr(sender)[1].rpartition("@")[2] or "localhost"
    message["Message-ID"] = make_msgid(domain=domain)
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = references_header(references, in_reply_to)
    if auto_reply:
        # RULES.md 3: every reply says it is automatic, so no well-behaved robot answers it
        message["Auto-Submitted"] = "auto-replied"
    message["X-Mailer"] = "gm"
    _set_body(message, text, lambda body, cte: message.set_content(body, cte=cte))
    _set_body(message, html, lambda body, cte: message.add_alternative(body, subtype="html", cte=cte))
    for data, maintype, subtype, filename in attachments:
        if isinstance(data, str):
            _set_body(message, data, lambda body, cte, subtype=subtype, filename=filename:
                      message.add_attachment(body, subtype=subtype, filename=filename, cte=cte))
        else:
            message.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    if rules is not None:
        # as text, so it is labelled UTF-8 and readable in any mail app
        message.add_attachment(rules.read_text(encoding="utf-8"), subtype="markdown",
                               filename=context["rules_attached"])
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
    row = db["outbox"].insert(
        {
            "kind": kind,
            "turn": turn,
            "player": player,
            "recipient": parseaddr(str(message["To"]))[1],
            "message_id": str(message["Message-ID"]),
            "subject": str(message["Subject"]),
            "raw": serialise(message),
            "queued_at": iso(now),
            "status": "queued",
            "attempts": 0,
        }
    )
    return row.last_pk
