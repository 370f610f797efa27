"""`gm audit` (docs/audit.md): reading a published audit record (source), checking its
shape (shape), replaying it with gm's own rules (replay, with the checks of its proof,
seats and end in checks) and checking it against a player's mail (mail)."""
