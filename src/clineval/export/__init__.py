"""Results in other projects' formats, built from the files the workflow writes (score summaries
and rows, requests, generations) and the identities that made them: :mod:`.eee`, the Every Eval
Ever schema (docs/export.md)."""
