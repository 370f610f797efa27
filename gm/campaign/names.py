"""Players' names (docs/rules/, Joining by mail; docs/campaign.md, Players): what
a name is once cleaned, what refuses one, and the key no two players' names may share.

A name comes from campaign.yaml, from a sign-up's `NAME` line or from `gm player replace
--name`, and is shown in every report, every text mail and the archive. So:

* `clean` removes what shows nothing or moves other text: control and format characters
  (Unicode categories Cc and Cf: zero-width spaces and joiners, the bidirectional
  overrides, embeddings and isolates such as U+202E, which would reverse a report line
  in a text mail), the other default-ignorable code points (Hangul fillers such as
  U+3164, variation selectors, the combining grapheme joiner), and collapses every run of
  white space (and the blank braille pattern U+2800) to one space. Names are cleaned
  wherever they enter and again wherever they are read back, so a name stored before
  this rule reaches no mail raw.
* `problems` refuses a name that is empty or longer than `MAX_LENGTH` once cleaned, or
  that holds `://` or `www.` (a link in every report and the archive), in any case or
  look-alike spelling.
* `keys` are what two players' names may not share: the name cleaned, NFKC-normalised,
  case-folded and reduced to its confusable skeleton (Unicode UTS #39, computed by ICU),
  so `Alice`, `ALICE`, `Аlice` with a Cyrillic А and fullwidth `Ａｌｉｃｅ` share the
  first; and the skeleton of the name as written, case kept, so `AIice` with a capital I
  shares the second with `Alice` (folding first would make it `aiice`, which no longer
  looks like `alice`; taking the skeleton first would part `ALICE` from `Alice`, as the
  skeleton makes a capital I a small l). Two names are alike when they share either.

Keys are computed when names are compared, never stored: a newer ICU may refine them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

MAX_LENGTH = 60
# the problems of a name, as codes: each caller words them for its reader (the GM's
# campaign.yaml and commands here, a person's mail in templates/mail/problems.txt)
EMPTY, LONG, LINK = "empty", "long", "link"
_LINK_MARKS = ("://", "www.")

# Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties) outside Cc and Cf: they
# render as nothing, so a name could hide in them. The ranges are fixed by Unicode's
# stability policy; Cc and Cf are tested by category, which covers new format characters.
_IGNORABLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2065\u3164\ufe00-\ufe0f\uffa0\ufff0-\ufff8"
    "\U000e0000-\U000e0fff]"
)
_DROPPED_CATEGORIES = ("Cc", "Cf", "Cs")  # Cs: a lone surrogate (undecodable bytes) is no letter
_BLANK = "\u2800"  # BRAILLE PATTERN BLANK: a letter by category that prints as a space


def clean(name: Any) -> str:
    """The name as it is kept and shown: without control, format (zero-width,
    bidirectional) and other invisible characters, white space collapsed to single
    spaces, no space at either end."""
    text = "" if name is None else str(name)
    if not (text.isascii() and text.isprintable()):  # most names: nothing to drop
        text = _IGNORABLE.sub("", text).replace(_BLANK, " ")
        # a line break or tab is a space between words, not nothing
        text = "".join(c for c in text if c.isspace() or unicodedata.category(c) not in _DROPPED_CATEGORIES)
    return " ".join(text.split())


def problems(name: str) -> list[str]:
    """What refuses this name, as codes (EMPTY, LONG, LINK), judged on the name cleaned."""
    cleaned = clean(name)
    if not cleaned:
        return [EMPTY]
    found = []
    if len(cleaned) > MAX_LENGTH:
        found.append(LONG)
    # folded and as skeletons: WWW., ｗｗｗ． and Cyrillic ԝԝԝ. are links all the same
    spellings = (cleaned.casefold(), *(k.casefold() for k in keys(cleaned)))
    if any(mark in text for text in spellings for mark in _LINK_MARKS):
        found.append(LINK)
    return found


def said(code: str) -> str:
    """A problem code in the GM's words (campaign.yaml's problems, gm's commands)."""
    return {
        EMPTY: "is empty once invisible characters are removed",
        LONG: f"is longer than {MAX_LENGTH} characters",
        LINK: "holds a web address ('://' or 'www.')",
    }[code]


@functools.lru_cache(maxsize=1 << 16)  # each holder's name is compared with every request of a batch
def keys(name: str) -> tuple[str, str]:
    """(the UTS #39 skeleton of the NFKC case fold, case-folded; the skeleton of NFKC as
    written): two names are alike when they share either."""
    skeleton = _skeleton()
    normal = unicodedata.normalize("NFKC", clean(name))
    # folded again after: the skeleton writes some prototypes in capitals (0 is O)
    return skeleton(normal.casefold()).casefold(), skeleton(normal)


def alike(name: str, other: str) -> bool:
    return any(a == b for a, b in zip(keys(name), keys(other), strict=True))


def first_alike(name: str, others: Iterable[tuple[Any, str]]) -> Any:
    """The label of the first of `others` (label, name) whose name is alike, or None: the
    keys computed once per name, so a request is checked against each place once."""
    wanted = keys(name)
    return next((label for label, other in others
                 if any(a == b for a, b in zip(wanted, keys(other), strict=True))), None)


def clashes(named: Iterable[tuple[Any, str]]) -> list[tuple[Any, Any]]:
    """(label, label of the first earlier one alike) for each name alike an earlier one."""
    seen: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
    found = []
    for label, name in named:
        own = keys(name)
        earlier = next((where[k] for where, k in zip(seen, own, strict=True) if k in where), None)
        if earlier is not None:
            found.append((label, earlier))
        for where, k in zip(seen, own, strict=True):
            where.setdefault(k, label)  # alike as it is, it may be what a later name is alike
    return found


@functools.cache
def _skeleton():
    # ICU (about 10 ms to import), imported when names are first compared, not with gm
    import icu

    checker = icu.SpoofChecker()
    return functools.partial(checker.getSkeleton, 0)  # the type argument is ignored since ICU 58
