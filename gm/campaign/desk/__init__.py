"""The order desk (docs/rules/, Order mail): one inbound message handled (inbound), whom it
believes and answers (trust), what became of the message (outcome), its one reply (reply)
and RESET's new password (reset)."""
