"""Benchmark: read a turn's order mail from IMAP, and where the time goes.

5,000 order mails (plain, quoted-printable alternatives, a few signed; 0.5-2 KB) are
APPENDed to a private Dovecot (tests/servers.py, STARTTLS on 127.0.0.1), then read by:

* gm:      gm.mail.imap.ImapInbox (UID SEARCH, then one UID FETCH per 500 messages);
* naive:   the same connection, one UID FETCH per message;
* parse:   no IMAP at all, `email` parsing of the same bytes (the floor of any ingest:
           message_from_bytes(policy=default) + get_body(("plain", "html")).get_content()).

then the mail is moved aside with ImapInbox.move_processed (one UID MOVE per 500).

    python benchmarks/ingest_imap.py [--messages 5000] [--batch 500] [--runs 3]
                                     [--target gm.mail.imap:ImapInbox]

Best of `--runs` for each reader. `--target` swaps the inbox class for anything with
ImapInbox's constructor and uids()/fetch()/move_processed() (e.g. the campaign layer's).
"""

from __future__ import annotations

import argparse
import contextlib
import email
import email.policy
import importlib
import shutil
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import servers  # noqa: E402 - tests/servers.py, the same server the tests use

from gm.mail.settings import ImapSettings  # noqa: E402


def order_mails(count: int) -> list[bytes]:
    """Order mail as players send it: mostly plain, some HTML alternatives, a few signed."""
    out = []
    for i in range(count):
        msg = EmailMessage()
        msg["From"] = f"Player {i} <player{i}@example.org>"
        msg["To"] = "Snakes GM <gm@example.org>"
        msg["Subject"] = f"Re: [spring-2027] Turn 7 orders {'é' if i % 7 == 0 else ''}"
        msg["Message-ID"] = f"<orders.{i}@mail.example.org>"
        msg["Date"] = "Sun, 21 Mar 2027 18:30:05 +0100"
        text = (f"password: horse-{i}\nA: {i % 6 + 1}\nB: {(i + 2) % 6 + 1}\n"
                f"trapdoor A: {i % 90 + 5}\n\n-- \nSent from my phone\n")
        if i % 10 < 7:
            msg.set_content(text)
        else:
            msg.set_content(text + "> quoted turn report line\n" * 20, cte="quoted-printable")
            msg.add_alternative(f"<html><body><pre>{text}</pre></body></html>", subtype="html")
        if i % 50 == 0:
            signed = EmailMessage()
            for header in ("From", "To", "Subject", "Message-ID", "Date"):
                signed[header] = msg[header]
            signed.make_mixed()
            signed.attach(msg)
            signed.add_attachment(b"-----BEGIN PGP SIGNATURE-----\n...\n", maintype="application",
                                  subtype="pgp-signature", filename="signature.asc")
            msg = signed
        out.append(msg.as_bytes(policy=email.policy.SMTP))
    return out


def parse(raws: list[bytes]) -> int:
    chars = 0
    for raw in raws:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        body = message.get_body(("plain", "html"))
        chars += len(body.get_content()) if body is not None else 0
    return chars


class Stopwatch:
    """Best time per step over several runs: `with watch("step"): ...`."""

    def __init__(self):
        self.best: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, label: str):
        start = time.perf_counter()
        yield
        seconds = time.perf_counter() - start
        self.best[label] = min(self.best.get(label, float("inf")), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--target", default="gm.mail.imap:ImapInbox")
    args = parser.parse_args()
    module, _, name = args.target.partition(":")
    inbox_class = getattr(importlib.import_module(module), name)
    n = args.messages

    work = Path(tempfile.mkdtemp(prefix="gm-bench-imap-"))
    work.chmod(0o755)  # Dovecot's auth process (user dovecot) must reach the passwd file
    tls = servers.TlsFiles.create(work / "tls")
    dovecot = servers.start_dovecot(work / "dovecot", tls, users=1)
    try:
        user, password = dovecot.add_user()
        account = servers.ImapAccount(dovecot, user, password)
        settings = ImapSettings(host="127.0.0.1", port=dovecot.port, user=user, ssl=False,
                                starttls=True, cafile=tls.cafile, timeout=60.0)
        raws = order_mails(n)
        size = sum(map(len, raws)) / n
        start = time.perf_counter()
        with account.client() as client:
            for i in range(0, n, 250):
                client.multiappend("INBOX", raws[i:i + 250])
        print(f"{n} order mails of {size:.0f} bytes on average, Dovecot over STARTTLS; "
              f"APPENDed in {time.perf_counter() - start:.1f} s (MULTIAPPEND of 250); "
              f"best of {args.runs} runs")

        watch = Stopwatch()
        gm_fetch, naive = f"UID FETCH, {args.batch} per command (gm)", \
            "UID FETCH, one per message (naive)"
        connect, search = "connect + STARTTLS + LOGIN + SELECT", "UID SEARCH ALL"
        floor, move = "email parsing of the same bytes (floor)", \
            f"UID MOVE, {args.batch} per command (gm)"
        for _ in range(args.runs):
            with watch(connect):
                inbox = inbox_class(settings, password, batch=args.batch).__enter__()
            with inbox:
                with watch(search):
                    uids = inbox.uids()
                with watch(gm_fetch):
                    fetched = [m for batch in inbox.fetch(uids) for m in batch]
                assert len(fetched) == n
                with watch(naive):
                    for uid in uids:
                        inbox.client.fetch([uid], [b"BODY.PEEK[]", b"INTERNALDATE"])
            with watch(floor):
                parse([m.raw for m in fetched])

        with inbox_class(settings, password, batch=args.batch) as inbox:
            uids = inbox.uids()
            with watch(move):
                inbox.move_processed(uids)
        assert account.count("INBOX") == 0 and account.count("gm-processed") == n
    finally:
        dovecot.stop()
        shutil.rmtree(work, ignore_errors=True)

    best = watch.best
    for label, seconds in best.items():
        print(f"  {label:<44} {seconds:7.3f} s  {n / seconds:9.0f} msg/s")
    ingest = sum(seconds for label, seconds in best.items() if label != naive)
    print(f"batched FETCH is {best[naive] / best[gm_fetch]:.1f}x faster than one FETCH per "
          "message")
    print(f"a whole ingest (connect, search, fetch, parse, move): {ingest:.2f} s, "
          f"{ingest / best[floor]:.2f}x bare parsing; where the time goes:")
    for label, seconds in best.items():
        if label != naive:
            print(f"  {label:<44} {100 * seconds / ingest:5.1f} %")


if __name__ == "__main__":
    main()
