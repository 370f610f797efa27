"""A judge: many campaigns behind one address (docs/deployment.md, A judge)."""
