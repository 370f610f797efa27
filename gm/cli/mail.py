"""`gm mail login` and `gm mail check`: the GM's side of the campaign's mail account. Both
read campaign.yaml alone (not the campaign's state), so they work before `gm start`."""

from __future__ import annotations

from pathlib import Path

import click

from ..campaign.config.reading import load_config
from ..errors import GmError
from ..mail import maildir


@click.group("mail")
def mail_group() -> None:
    """Log in to the campaign's mail servers (OAuth 2.0) and check them."""


@mail_group.command("login")
@click.pass_context
def login_cmd(ctx: click.Context) -> None:
    """Authorise gm to use the mail account by OAuth 2.0 (mail.auth: oauth2).

    Prints an address and a code: open the address on any device, sign in as the game's
    mail account and enter the code. gm waits, then keeps the refresh token in the
    campaign folder (oauth2-token.json, readable by you alone). Run it again whenever
    gm says the login was refused.

    Example: gm -C spring-2027 mail login
    """
    from ..mail.oauth import device_login
    from ..mail.tokenfile import TOKEN_FILE

    folder = Path(ctx.obj["dir"])
    mail = load_config(folder).mail
    if mail.auth != "oauth2":
        raise GmError("campaign.yaml's mail has no 'auth: oauth2': gm mail login is for OAuth "
                      "2.0 (with passwords, set GM_IMAP_PASSWORD and GM_SMTP_PASSWORD)")
    record = device_login(folder, mail.oauth2, echo=click.echo)
    click.echo(f"Logged in. The refresh token is in {folder / TOKEN_FILE}, readable by you "
               f"alone; the access token lasts until {record['expires_at']} and is renewed "
               "as needed.")
    click.echo(f"Next: gm -C {folder} mail check")


@mail_group.command("check")
@click.pass_context
def check_cmd(ctx: click.Context) -> None:
    """Log in to the IMAP and SMTP servers as configured and say what works; sends nothing.

    Checks each server can be reached, its TLS, the login (password or OAuth 2.0), and the
    folders mail.imap.folder and processed_folder. Exit 0 when all is well, 1 otherwise.

    Example: gm -C spring-2027 mail check
    """
    from ..mail.check import check_mail

    folder = Path(ctx.obj["dir"])
    mail = load_config(folder).mail
    if mail.transport != "imap+smtp":
        click.echo(f"mail transport is {mail.transport}: no server to log in to (order mail "
                   f"is read from {maildir.inbox(folder)}, and sent to "
                   f"{maildir.outbox(folder)})")
        return
    findings = check_mail(folder, mail)
    for finding in findings:
        if finding.heading:
            click.echo(f"{finding.server}: {finding.text}")
        else:
            click.echo(f"  {'ok' if finding.ok else 'PROBLEM'}: {finding.text}")
    problems = sum(1 for finding in findings if not finding.ok)
    if problems:
        raise GmError(f"{problems} problem{'s' if problems != 1 else ''} with the mail settings "
                      "(above); fix and run gm mail check again")
    click.echo("All good: gm can read and send the campaign's mail.")


COMMANDS = (mail_group,)
