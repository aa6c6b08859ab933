"""A medical multiple-choice QA benchmark in the common format: a question, lettered options and
the answer's letter. It is the worked example of docs/extending.md: everything it does not
declare comes from ``benchmarks.base.standard``."""

TITLE = "Medical MCQA"
