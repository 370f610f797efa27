"""Near misses: how likely a word is a typo of a command keyword (docs/rules/, What is
read).

gm.mail.orderlang asks `typo_cost` whether a line's first word misspells one of the
game's commands (NUMBR, MOEV, PLAU), so the player is told "did you mean" instead of the
line being passed over as prose.
"""

from __future__ import annotations

import functools

__all__ = ["INFLECTED", "NEAR_MISS_LETTERS", "TYPO_BUDGET", "near_miss", "typo_budget", "typo_cost"]

# A misspelt command is a typo of one: a letter doubled (MOVVE), dropped (MOV,
# PASWORD, NUMBR), two letters swapped (MOEV, BUIDL) or a key struck beside the right one
# (PLAU). Each costs 1; any other letter added or changed costs 2. A word is a near miss of
# a command within TYPO_BUDGET of it, with the command's first letter (a typo rarely hits
# the first key, and "Same here" and "Name: Ann" are words, not GAME) and at least
# NEAR_MISS_LETTERS letters ("Ed" signs a mail). A plain difflib ratio could not tell MOV
# or MOEV from "More soon": every four-letter word one letter off a command scores alike.
NEAR_MISS_LETTERS = 3
# keyword length -> cost allowed: one typo in a short command, two in a long one
TYPO_BUDGET = ((5, 1), (99, 2))
# Keys beside each other on a QWERTY layout, rows staggered as on the keys; other layouts
# still get every doubled, dropped and swapped letter.
_ROWS = (("QWERTYUIOP", 0.0), ("ASDFGHJKL", 0.25), ("ZXCVBNM", 0.75))
_KEYS = {key: (row, column + offset) for row, (keys, offset) in enumerate(_ROWS)
         for column, key in enumerate(keys)}
# A command's word with one of these endings is English, not a typo: "Moved", "Played
# well", "Placed third".
INFLECTED = ("ED", "ING")


def typo_budget(keyword: str) -> int:
    """The typo cost a word may have and still be taken for `keyword` (TYPO_BUDGET)."""
    return next(cost for longest, cost in TYPO_BUDGET if len(keyword) <= longest)


def _beside(a: str, b: str) -> bool:
    """True when keys a and b touch on a QWERTY layout."""
    if a not in _KEYS or b not in _KEYS or a == b:
        return False
    (row_a, column_a), (row_b, column_b) = _KEYS[a], _KEYS[b]
    if row_a == row_b:
        return abs(column_a - column_b) == 1
    return abs(row_a - row_b) == 1 and abs(column_a - column_b) < 1


@functools.lru_cache(maxsize=4096)
def typo_cost(word: str, keyword: str) -> int:
    """What it takes to type `keyword` as `word` (both upper case): an edit distance in
    which each likely typo costs 1 (a dropped letter; a doubled letter or one beside a
    neighbour on the keys; a letter beside the right key; two letters swapped; a
    plural s) and any other added or changed letter 2."""
    n, m = len(word), len(keyword)
    if abs(n - m) > 2:
        return 3
    far = 99
    cost = [[far] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0
    for i in range(n + 1):
        for j in range(m + 1):
            if i == j == 0:
                continue
            best = far
            if i and j:
                same = word[i - 1] == keyword[j - 1]
                best = cost[i - 1][j - 1] + (0 if same else 1 if _beside(word[i - 1], keyword[j - 1]) else 2)
            if j:  # keyword[j - 1] dropped
                best = min(best, cost[i][j - 1] + 1)
            if i:  # word[i - 1] added
                extra = word[i - 1]
                around = word[max(0, i - 2):i - 1] + word[i:i + 1]
                plural = extra == "S" and i == n and j == m
                likely = plural or any(extra == c or _beside(extra, c) for c in around)
                best = min(best, cost[i - 1][j] + (1 if likely else 2))
            if i > 1 and j > 1 and word[i - 1] == keyword[j - 2] and word[i - 2] == keyword[j - 1]:
                best = min(best, cost[i - 2][j - 2] + 1)  # two letters swapped
            cost[i][j] = best
    return cost[n][m]


def near_miss(word: str, meant: str) -> bool:
    """Whether `word` (any case) is a likely typo of `meant`, such as a campaign id
    (`autmn` for `autumn`): not the same, at least NEAR_MISS_LETTERS long, and within
    the typo budget of `meant`'s length."""
    word, meant = word.upper(), meant.upper()
    return (word != meant and len(word) >= NEAR_MISS_LETTERS
            and typo_cost(word, meant) <= typo_budget(meant))
