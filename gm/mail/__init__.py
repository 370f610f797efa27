"""Mail in and out: reading and parsing order mail, composing gm's mail, and the Maildir and
IMAP/SMTP transports. Nothing here knows a campaign (gm.campaign uses it)."""
