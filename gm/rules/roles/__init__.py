"""The ruleset interface by role: `gm.rules.base.Ruleset` is their composition.

* `core.RulesCore`: options, start, resolve, end, standings and the state's storage.
* `orders.OrdersByMail`: the grammar, merging a message into the standing order, who must write.
* `mailviews.MailViews`: what players read by mail.
* `archive.ArchiveRules`: what the published archive shows.
* `boards.BoardTools`: board files, campaign boards and board analysis.

Every member has a working default except `start`, `resolve` and `grammar`; a game also
writes `standings` (or, as rulesets did before it, `state_json`) and its words. gm reads
where everyone stands through `standings` alone.
"""
