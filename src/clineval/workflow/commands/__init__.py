"""User commands over a plan and its results: ``clineval audit``, ``dvc``, ``answers``,
``publish`` and ``agreement``."""
