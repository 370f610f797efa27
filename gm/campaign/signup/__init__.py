"""Sign-up by mail before `gm start` (docs/campaign.md, Sign-up by mail): the sign-up
language (language), its confirmation codes (codes), who stands where (standing) and the
desk that answers a JOIN, CONFIRM or LEAVE (desk)."""
