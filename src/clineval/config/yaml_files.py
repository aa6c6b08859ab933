"""YAML config files that do not parse: one line naming the file, the line and the problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from clineval.errors import ConfigError


def yaml_error(err: yaml.YAMLError, path: Path | str | None = None) -> ConfigError:
    """The error for a YAML file that does not parse: ``path`` (else the file the parser names),
    the line and column of the problem, and what the parser expected."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    where = str(path if path is not None else getattr(mark, "name", "") or "a YAML file")
    if mark is not None:
        where += f", line {mark.line + 1}, column {mark.column + 1}"
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    if context:
        problem += f" ({context})"
    return ConfigError(f"{where}: not valid YAML: {' '.join(problem.split())}")


def read_yaml(path: Path) -> Any:
    """The content of a YAML config file (a syntax error: :func:`yaml_error`)."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise yaml_error(err, path) from None
