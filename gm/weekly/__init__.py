"""The GM's weekly turn over one campaign, whole: mail read, the turn resolved when due, mail
sent, the archive published. Above the campaign and its archive, below the commands: the CLI
and the demo both run it."""
