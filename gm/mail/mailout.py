"""Mail gm writes, composed: rendered from templates (every word a player reads lives
there) and built as multipart/alternative with a text and an HTML part (gm.mail.mime writes
its bytes; the campaign's outbox, gm.campaign.outbox, queues it).

Each ruleset words its own mail. A mail of kind `report` in a campaign of ruleset `classic`
is rendered from `mail/classic/report.txt` and `.html` when they exist, else from the
generic `mail/report.txt` and `.html`, which speak of no ruleset's concepts; likewise
`calendar/<ruleset>/deadline.txt` before `calendar/deadline.txt`. A ruleset derived from
another (a GM's house rules) falls back to that one's templates before the generic ones.
The ruleset is named by the context (`ruleset`: every mail context says which campaign it
is about). A ruleset kept outside gm brings its templates in the folder its `templates`
names, laid out the same and searched before gm's own. The parts a template names
(`{% import "mail/_turn.txt" %}`) are looked up by the same rule (gm.rules.templating).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from email.utils import format_datetime, formataddr, make_msgid, parseaddr
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
import jinja2.ext

from ..counts import count, ordinal
from ..pagenames import turn_page
from ..rules import templating
from ..rules.files import lineage, rules_file
from ..rules.templating import ruleset_templates
from .mime import Mail, Part

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


def environment(kind: str, ruleset: str | None = None) -> jinja2.Environment:
    """The environment of `kind` (text: mail and calendar texts; html) for a campaign of
    `ruleset`: its templates and every part they name looked up along the ruleset's lineage
    in its own folders, then gm's (gm.rules.templating). No ruleset: gm's templates as named."""
    rulesets, folders = ruleset_templates(ruleset)
    return _environment(kind, rulesets, folders)


@cache
def _environment(kind: str, rulesets: tuple[str, ...], folders: tuple[Path, ...]) -> jinja2.Environment:
    def configure(env: jinja2.Environment) -> None:
        env.filters["square"] = lambda s: "Start" if s == 0 else str(s)
        env.filters["ordinal"] = ordinal
        env.filters["mailto"] = mailto
        env.filters["turn_page"] = turn_page
        env.filters["count"] = count  # {{ players | length | count("player") }}: "1 player", "2 players"
        env.globals["once"] = _once()
        # `{% import partial("_order.html") as o %}`: the same as `{% import "mail/_order.html" %}`,
        # which the lookup finds for the mail's ruleset (kept for templates written with it)
        env.globals["partial"] = jinja2.pass_context(
            lambda context, name: find_template(kind, "mail", name, context))

    return templating.environment(
        rulesets, folders, configure,
        autoescape=(kind == "html"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # `do` lets a template build a small list (welcome.html)
        extensions=["jinja2.ext.do", _FirstLineKeepsItsNewline],
    )


# Mail that carries the ruleset's rules, so a player without an archive still has them
RULES_ATTACHED = ("help", "welcome", "observer_welcome")


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
    from, else the generic `folder/name` (gm.rules.templating), loaded under the name it was
    found at."""
    ruleset = context.get("ruleset")
    if not isinstance(ruleset, str) or not ruleset:
        raise ValueError(f"the context for {folder}/{name} must name its ruleset")
    env = environment(kind, ruleset)
    loader = env.loader
    assert isinstance(loader, templating.TemplateLoader)
    return env.get_template(loader.locate(env, f"{folder}/{name}"))


def mailto(address: str, subject: str, body: str) -> str:
    """A `mailto:` link that opens a reply with `subject` and `body` filled in (RFC 6068:
    percent-encoded UTF-8, line breaks as %0D%0A)."""
    body = "\r\n".join(line.rstrip() for line in body.strip("\n").splitlines())
    return f"mailto:{quote(address, safe='@')}?subject={quote(subject, safe='')}&body={quote(body, safe='')}"


def render_text(template: str, context: Mapping[str, Any]) -> tuple[str, str]:
    """(first line after its `Label:`, the rest) of a plain-text template such as
    `calendar/deadline.txt` (the ruleset's own first), whose first line is `Summary: ...`."""
    folder, _, name = template.partition("/")
    text = find_template("text", folder, name, context).render(context)
    first, _, body = text.partition("\n")
    return first.partition(":")[2].strip(), body.strip("\n")


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
    headers: Sequence[tuple[str, str]] = (),
) -> Mail:
    """One message. `attachments` are (data, maintype, subtype, filename), text given as
    str travelling as 7bit or base64 like the bodies (transfer_encoding). Help and
    welcome mail also carry the ruleset's rules (RULES_ATTACHED); their templates say so
    through `rules_attached`, the attachment's name, or None. `headers` are added as given:
    the proof's X-GM- headers (docs/audit.md, Checking mail), which `gm audit --mail` reads."""
    headers_given = list(headers)
    rules = None
    if template in RULES_ATTACHED:
        rules = rules_file(lineage(str(context.get("ruleset", ""))))
        context = {**context, "rules_attached": f"rules-{context['ruleset']}.md" if rules else None}
    subject, text, html = render(template, context)
    name, address = parseaddr(to)
    domain = parseaddr(sender)[1].rpartition("@")[2] or "localhost"
    headers = [("From", sender), ("To", formataddr((name, address)) if name else address), ("Subject", subject),
               ("Date", format_datetime(now)), ("Message-ID", make_msgid(domain=domain))]
    if in_reply_to:
        headers += [("In-Reply-To", in_reply_to), ("References", references_header(references, in_reply_to))]
    if auto_reply:
        # docs/rules/, Replies: every reply says it is automatic, so no well-behaved robot answers it
        headers.append(("Auto-Submitted", "auto-replied"))
    headers.append(("X-Mailer", "gm"))
    if context.get("game_commitment"):
        headers.append(("X-GM-Game", context["game_commitment"]))  # docs/audit.md, Checking mail
    headers += headers_given
    parts = [Part.of(text, "text", "plain"), Part.of(html, "text", "html")]
    parts += [Part.of(data, maintype, subtype, filename) for data, maintype, subtype, filename in attachments]
    if rules is not None:
        # as text, so it is labelled UTF-8 and readable in any mail app
        parts.append(Part(rules.read_text(encoding="utf-8"), "text", "markdown", context["rules_attached"], None,
                           literal=True))
    return Mail(tuple(headers), tuple(parts))
