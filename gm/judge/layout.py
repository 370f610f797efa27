"""A judge's folder (docs/deployment.md, A judge): `judge.yaml` (title, site_url, mail:
as a campaign's, notify:, caps:), its games as folders under `campaigns/`, its own store
`judge.sqlite`, its mailbox `mail/inbox` and `mail/outbox` (transport maildir) and its
site under `site/`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..campaign.config.judged import CAMPAIGNS, JUDGE_FILE
from ..campaign.config.reading import _mail
from ..campaign.config.values import MailConfig
from ..errors import ConfigError, GmError
from ..mail.maildir import make_mailboxes
from ..yamlfile import LineDict, key_problems, read

TOP_KEYS = ("title", "site_url", "mail", "notify", "caps")
URL = re.compile(r"https?://[^\s<>\"']+")

STARTER = """\
# A gm judge: many games behind one address (docs/deployment.md, A judge).
# Its games are folders under campaigns/, each made with: gm campaign new {dir}/campaigns/ID
# (their campaign.yaml has no mail: key: they use the judge's below). From cron:
#   gm judge {dir} turn
title: {title}
# site_url: https://example.org/judge/   # where site/ is served; links in LIST replies
# caps: {{unasked_per_day: 200}}          # replies nobody asked for (LIST, unknown games), a UTC day
# notify:                                # a POST at each start, turn, end, sign-up opening and closing
#   webhooks:
#     - {{url: "https://discord.com/api/webhooks/...", format: discord}}   # or slack, json
mail:
  transport: maildir         # mail/inbox and mail/outbox in this folder; or imap+smtp:
  from: "Snakes Judge <judge@example.org>"
  # imap: {{host: imap.example.org, port: 993, user: judge, ssl: true, folder: INBOX}}
  # smtp: {{host: smtp.example.org, port: 587, user: judge, starttls: true}}
  # passwords come only from GM_IMAP_PASSWORD and GM_SMTP_PASSWORD
"""


@dataclass(frozen=True)
class Judge:
    folder: Path
    title: str
    site_url: str | None
    mail: MailConfig
    notify: Any
    unasked_per_day: int = 200

    @property
    def campaigns(self) -> Path:
        return self.folder / CAMPAIGNS

    def games(self) -> list[Path]:
        """Every game's folder, in order of name: a folder holding a campaign.yaml."""
        if not self.campaigns.is_dir():
            return []
        return sorted(p for p in self.campaigns.iterdir() if (p / "campaign.yaml").is_file())

    @property
    def site(self) -> Path:
        return self.folder / "site"


def new_judge(folder: Path) -> Path:
    """Write a commented judge.yaml, an empty campaigns/ and the mailboxes."""
    path = folder / JUDGE_FILE
    if path.exists():
        raise GmError(f"{path} already exists; nothing was written")
    (folder / CAMPAIGNS).mkdir(parents=True, exist_ok=True)
    make_mailboxes(folder)
    title = folder.resolve().name.replace("-", " ").title() or "Judge"
    path.write_text(STARTER.format(dir=folder, title=title), encoding="utf-8")
    return path


def load_judge(folder: Path) -> Judge:
    """The judge in `folder`; ConfigError listing every problem of judge.yaml."""
    path = folder / JUDGE_FILE
    if not path.is_file():
        raise ConfigError(str(path), ["no judge here (gm judge new DIR writes a starter file)"])
    data = read(path, ConfigError)
    if not isinstance(data, LineDict):
        raise ConfigError(str(path), ["judge.yaml must be a mapping (see docs/deployment.md)"])
    problems = key_problems(data, TOP_KEYS)
    title = data.get("title") or folder.resolve().name
    if not isinstance(title, str):
        problems.append(f"line {data.line_of('title')}: title must be text")
    site_url = data.get("site_url")
    if site_url is not None and not (isinstance(site_url, str) and URL.fullmatch(site_url)):
        problems.append(f"line {data.line_of('site_url')}: site_url must be an http(s) address")
        site_url = None
    if site_url and not site_url.endswith("/"):
        site_url += "/"
    caps = data.get("caps") or {}
    per_day = caps.get("unasked_per_day", 200) if isinstance(caps, dict) else 200
    if not isinstance(per_day, int) or isinstance(per_day, bool) or per_day < 1:
        problems.append(f"line {data.line_of('caps')}: caps unasked_per_day must be a whole number of at least 1")
        per_day = 200
    mail = _mail(data, problems)
    if problems:
        raise ConfigError(str(path), problems)
    return Judge(folder, str(title), site_url, mail, data.get("notify"), per_day)
