"""A campaign that is one of a judge's games (docs/deployment.md, A judge): its folder is
`JUDGE/campaigns/<id>` beside `JUDGE/judge.yaml`. Such a campaign.yaml holds no `mail:`:
the campaign uses the judge's, so every `gm -C` command on it mails from the judge's
address and the judge reads one mailbox for all its games."""

from __future__ import annotations

from pathlib import Path

JUDGE_FILE = "judge.yaml"
CAMPAIGNS = "campaigns"


def judge_of(folder: Path) -> Path | None:
    """The judge's folder when `folder` is one of its campaigns, else None."""
    folder = Path(folder).resolve()
    home = folder.parent.parent
    if folder.parent.name == CAMPAIGNS and (home / JUDGE_FILE).is_file():
        return home
    return None
