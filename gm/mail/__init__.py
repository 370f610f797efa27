"""Mail in and out: parsing order mail, and the Maildir and IMAP/SMTP transports."""
