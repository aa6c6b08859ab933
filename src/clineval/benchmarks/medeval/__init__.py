"""MedEval (He et al., EMNLP 2023): radiology sentences and reports, NLU and NLG tasks.

Sentence level: abnormality and ambiguity identification, disambiguated rewriting. Report level:
code prediction and summarization. Chest and miscellaneous domains (foot, ankle, ...) are scored
and tabled apart. The entry point for the workflow is ``benchmark.py``; the input formats are
described in ``formats.py`` and docs/medeval.md.
"""

TITLE = "MedEval"
