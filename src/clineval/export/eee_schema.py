"""The pinned Every Eval Ever schemas (``schemas/eee-<VERSION>/``, MIT) and validation against
them: an aggregate document against ``eval.schema.json``, each instance line against
``instance_level_eval.schema.json``. A document that does not validate is a :class:`DataError`
naming the file, the line and the field."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.errors import DataError

if TYPE_CHECKING:
    from jsonschema import Draft7Validator

#: The schema version written into every document and the folder its files are pinned in.
VERSION = "0.3.0"
SCHEMAS = Path(__file__).parent / "schemas" / f"eee-{VERSION}"
AGGREGATE = "eval.schema.json"
INSTANCE = "instance_level_eval.schema.json"


@cache
def validator(name: str) -> Draft7Validator:
    """The validator of one pinned schema file (``AGGREGATE`` or ``INSTANCE``)."""
    from jsonschema import Draft7Validator  # when validating: the plan's schemas load this module

    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft7Validator.check_schema(schema)
    return Draft7Validator(schema)


def relationships() -> list[str]:
    """The values of ``source_metadata.evaluator_relationship`` the schema allows."""
    source = validator(AGGREGATE).schema["properties"]["source_metadata"]
    return list(source["properties"]["evaluator_relationship"]["enum"])


def _field(error: Any) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "(document)"


def check(name: str, document: Any, where: Path | str, line: int | None = None) -> None:
    """Raise :class:`DataError` for the problem of ``document`` under schema ``name`` that
    jsonschema finds most relevant (:func:`jsonschema.exceptions.best_match`)."""
    from jsonschema.exceptions import best_match

    error = best_match(validator(name).iter_errors(document))
    if error is not None:
        raise DataError(where, None, _field(error),
                        f"not valid against Every Eval Ever {VERSION} {name}: {error.message}",
                        line=line)


def check_aggregate(document: Any, where: Path | str) -> None:
    check(AGGREGATE, document, where)


def check_instances(lines: Iterable[Any], where: Path | str) -> None:
    for number, line in enumerate(lines, start=1):
        check(INSTANCE, line, where, line=number)
