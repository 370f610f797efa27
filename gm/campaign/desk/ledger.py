"""What the desk did with the mail, for the GM's `gm status` (docs/rules/, Order mail):
the outbox and failing addresses, wrong passwords today, mail kept unanswered by kind and
sender, and each player's mail refused in a turn. Read from the campaign's store only."""

from __future__ import annotations

from datetime import datetime

from ... import clock
from ...counts import count, one_or_many
from ..folder import Campaign
from ..outbox import waiting
from .trust import CHECK_LIMIT, TELL_AT, capped_today

__all__ = ["KEPT_LINES", "UNANSWERED_WHY", "mail_summary", "refused_this_turn"]

UNANSWERED_WHY = {
    "capped": "past a cap on the replies a day to one address or to strangers in all, not answered",
    "hostile": "too large, too deep or unreadable as mail, refused unread",
    "unreadable": "no usable sender, not answered",
    "loop": "auto-replies, bounces, bulk mail, our own, or replies to our refusals that do not authenticate; "
            "not answered",
}
# gm status lists kept mail by sender and subject (docs/rules/, Order mail), this many lines a kind at
# most: a flood of forged mail must not bury the rest of the summary
KEPT_LINES = 20


def mail_summary(campaign: Campaign, now: datetime) -> list[str]:
    """The end of gm status, started or not: the outbox, failing addresses, mail kept."""
    failing = campaign.store.rows("select id, email, failing from players where failing is not null")
    broken = campaign.store.one("select count(*) as n from messages where outcome = 'error'")["n"]
    queued, failed = waiting(campaign.store.conn)
    lines = [f"outbox: {queued} queued, {failed} refused for good"]
    lines += [f"FAILING address {row['email']} ({row['id']}): {row['failing']}" for row in failing]
    lines += _guessed_lines(campaign, now)
    if broken:
        lines.append(f"UNANSWERED: {count(broken, 'message')} gm could not handle "
                     f"{one_or_many(broken, 'is', 'are')} kept in the database (messages with outcome 'error')")
    held, told = capped_today(campaign.store.conn, now)
    if held:
        lines.append(f"CAPS: {count(held, 'message')} not answered today (UTC) past a cap on replies; "
                     + (f"you were mailed at {told}" if told else "no mail to you yet"))
    return lines + _kept_lines(campaign)


def _guessed_lines(campaign: Campaign, now: datetime) -> list[str]:
    """Players with TELL_AT or more failed password checks today, the UTC day (docs/rules/,
    "Passwords and RESET"): told of it, and past CHECK_LIMIT refused unchecked."""
    day = clock.utc_day(now)
    rows = campaign.store.rows(
        "select player, failures, unchecked from password_failures where day = ? and failures >= ? "
        "order by failures desc, player", (day, TELL_AT))
    lines = []
    for row in rows[:KEPT_LINES]:
        line = (f"WRONG PASSWORDS for {row['player']} today ({day}, UTC): {row['failures']} "
                f"(the player was told at {TELL_AT})")
        if row["failures"] >= CHECK_LIMIT:
            line += (f"; no more checked today: {count(row['unchecked'], 'message')} refused unchecked so far "
                     f"(gm player password {row['player']} lets the player in again)")
        lines.append(line)
    if len(rows) > KEPT_LINES:
        lines.append(f"  and {count(len(rows) - KEPT_LINES, 'more player')} with {TELL_AT} or more today")
    return lines


def _kept_lines(campaign: Campaign) -> list[str]:
    """Mail kept but not answered (docs/rules/, Order mail), for the GM to look at: per kind a count and
    why, then each sender and subject (the same ones once, with how many), newest first."""
    lines = []
    for outcome, why in sorted(UNANSWERED_WHY.items()):
        rows = campaign.store.rows(
            # a loop's detail says which kind (a bounce, our own, a reply to a refusal); others' vary
            # message by message (a cap's count), so they group by sender and subject alone
            "select sender, subject, case when outcome = 'loop' then detail end as detail, count(*) as n, "
            "max(received_at) as last from messages where outcome = ? group by 1, 2, 3 order by last desc, sender",
            (outcome,))
        if not rows:
            continue
        total = sum(row["n"] for row in rows)
        lines.append(f"kept: {count(total, outcome + ' message')} ({why})")
        for row in rows[:KEPT_LINES]:
            times = f" (x{row['n']})" if row["n"] > 1 else ""
            detail = f": {_short(row['detail'])}" if row["detail"] else ""
            lines.append(f"  {row['sender'] or '(no sender)'}, \"{_short(row['subject']) or '(no subject)'}\""
                         f"{times}{detail}")
        if len(rows) > KEPT_LINES:
            rest = sum(row["n"] for row in rows[KEPT_LINES:])
            lines.append(f"  and {count(rest, 'more message')} from other senders or with other subjects")
    return lines


def _short(text: str | None, width: int = 100) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 3] + "..."


def refused_this_turn(campaign: Campaign, turn: int) -> dict[str, list[str]]:
    """Each player's messages refused in `turn` (why, in the words the player got), oldest
    first; refused mail that failed to authenticate is matched by its sender."""
    by_address = {p.email: p.id for p in campaign.config.players}
    refused: dict[str, list[str]] = {}
    for row in campaign.store.rows(
            "select outcome, player, sender, detail from messages where turn = ? and outcome in "
            "('refused', 'hostile', 'capped') order by id", (turn,)):
        player = row["player"] or by_address.get(row["sender"])
        if player is not None:
            why = row["detail"] or row["outcome"]
            refused.setdefault(player, []).append(why if len(why) <= 90 else why[:87] + "...")
    return refused
