"""Mail text out of bytes: charsets named wrongly or not at all (read the way real mail
programs write them), raw 8-bit headers, and control characters that must not reach a reply
header."""

from __future__ import annotations

import codecs
import re

_SURROGATES = re.compile(r"[\udc80-\udcff]+")
_ANY_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")


def unsurrogate(value: str) -> str:
    """Raw 8-bit bytes the parser kept as surrogates, read as UTF-8 (RFC 6532), else as
    windows-1252, the two that real 8-bit headers and bodies turn out to be."""

    def decode(run: re.Match[str]) -> str:
        return decode_unknown(run.group().encode("utf-8", "surrogateescape"))

    return _ANY_SURROGATE.sub("\ufffd", _SURROGATES.sub(decode, value))


def one_line(value: str) -> str:
    # Subjects and ids go back out in reply headers: a decoded CR LF there is injection.
    return " ".join(_CONTROLS.sub(" ", value).split())


# Labels mail programs use that Python does not know, and labels whose real-world use is a
# superset (WHATWG Encoding Standard): "iso-8859-1" text is windows-1252 in practice.
_CHARSET_ALIASES = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "iso_8859-1": "cp1252",
    "windows-874": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "iso-8859-8-i": "iso8859_8",
    "x-mac-roman": "mac_roman",
    "macintosh": "mac_roman",
    "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949",
    "shift_jis": "cp932",
    "x-sjis": "cp932",
}
# Labels that say nothing about the bytes: read them as undeclared text.
_NO_CHARSET = {
    "us-ascii",
    "ascii",
    "ansi_x3.4-1968",
    "646",
    "us",
    "unknown-8bit",
    "x-unknown",
    "unknown",
    "x-user-defined",
    "default",
}
# Text codecs that are no charset: a mail declaring them is hostile or confused.
_NOT_CHARSETS = {
    "idna",
    "punycode",
    "unicode_escape",
    "raw_unicode_escape",
    "undefined",
    "mbcs",
    "oem",
}


def _codec(charset: str) -> codecs.CodecInfo | None:
    try:
        info = codecs.lookup(_CHARSET_ALIASES.get(charset, charset))
    except (LookupError, ValueError, TypeError):
        return None
    if not info._is_text_encoding or info.name.replace("-", "_") in _NOT_CHARSETS:
        return None
    return info


def decode_unknown(data: bytes) -> str:
    """Bytes of no (or a useless) declared charset: UTF-8 when valid, else windows-1252."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def decode_bytes(data: bytes, charset: str | None, problems: list[str]) -> str:
    if charset is None or charset in _NO_CHARSET:
        # Undeclared 8-bit text is usually UTF-8 from a program that forgot to say so.
        return decode_unknown(data)
    info = _codec(charset)
    if info is None:
        problems.append(f"unknown charset {charset!r}")
        return decode_unknown(data)
    try:
        return data.decode(info.name)
    except UnicodeDecodeError:
        pass
    except Exception:  # a codec that fails otherwise is as good as unknown
        problems.append(f"unknown charset {charset!r}")
        return decode_unknown(data)
    if info.name == "utf-8":
        # Declared UTF-8 but not valid: most often windows-1252 labelled wrongly.
        problems.append("body is not valid UTF-8")
        return data.decode("cp1252", errors="replace")
    problems.append(f"body is not valid {charset}")
    return data.decode(info.name, errors="replace")
