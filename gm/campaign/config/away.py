"""campaign.yaml's `absence:` and `extend:` (docs/campaign.md; docs/rules/, Absences and
extension votes): both free to edit, both with defaults a campaign made before them plays
with."""

from __future__ import annotations

from dataclasses import dataclass

from ...yamlfile import LineDict, is_int, key_problems

ABSENCE_KEYS = ("mode", "max_days", "max_days_per_player")
EXTEND_KEYS = ("quorum", "max_days", "per_turn")
ABSENCE_MODES = ("standing", "extend")


@dataclass(frozen=True)
class AbsenceConfig:
    mode: str = "standing"
    max_days: int = 14
    max_days_per_player: int = 28


@dataclass(frozen=True)
class ExtendConfig:
    quorum: float | None = None  # None: no votes taken
    max_days: int = 3
    per_turn: int = 1


def _mapping(data: LineDict, key: str, problems: list[str], example: str) -> LineDict | None:
    raw = data.get(key)
    if raw is None:
        return None
    if not isinstance(raw, LineDict):
        problems.append(f"line {data.line_of(key)}: {key} must be a mapping, such as {key}: {example}")
        return None
    return raw


def _whole(raw: LineDict, key: str, default: int, least: int, where: str, problems: list[str]) -> int:
    value = raw.get(key, default)
    if not is_int(value) or value < least:
        problems.append(f"line {raw.line_of(key)}: {where} {key} must be a whole number of at least {least}")
        return default
    return value


def read_absence(data: LineDict, problems: list[str]) -> AbsenceConfig:
    raw = _mapping(data, "absence", problems, "{mode: extend, max_days: 14}")
    if raw is None:
        return AbsenceConfig()
    problems += key_problems(raw, ABSENCE_KEYS, "absence")
    mode = raw.get("mode", "standing")
    if mode not in ABSENCE_MODES:
        problems.append(f"line {raw.line_of('mode')}: absence mode must be standing or extend")
        mode = "standing"
    max_days = _whole(raw, "max_days", 14, 1, "absence", problems)
    per_player = _whole(raw, "max_days_per_player", 28, 1, "absence", problems)
    return AbsenceConfig(mode, max_days, per_player)


def read_extend(data: LineDict, problems: list[str]) -> ExtendConfig:
    raw = _mapping(data, "extend", problems, "{quorum: 0.66, max_days: 3}")
    if raw is None:
        return ExtendConfig()
    problems += key_problems(raw, EXTEND_KEYS, "extend")
    quorum = raw.get("quorum")
    if quorum is not None and (isinstance(quorum, bool) or not isinstance(quorum, int | float)
                               or not 0 < quorum <= 1):
        problems.append(f"line {raw.line_of('quorum')}: extend quorum must be a fraction above 0 and at most 1")
        quorum = None
    max_days = _whole(raw, "max_days", 3, 1, "extend", problems)
    per_turn = _whole(raw, "per_turn", 1, 0, "extend", problems)
    return ExtendConfig(None if quorum is None else float(quorum), max_days, per_turn)
