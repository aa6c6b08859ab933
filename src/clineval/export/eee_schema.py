"""Validation against the Every Eval Ever schemas of the version clineval writes: an aggregate
document against ``eval.schema.json``, each instance line against
``instance_level_eval.schema.json``.

The schemas are not part of clineval. :func:`find` takes them from a folder the user names
(``--schemas DIR`` or ``CLINEVAL_EEE_SCHEMAS``), else from an installed ``every-eval-ever``
distribution, whose wheel holds them in ``every_eval_ever/schemas/``. A document that does not
validate is a :class:`DataError` naming the file, the line and the field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.errors import ConfigError, DataError

if TYPE_CHECKING:
    from jsonschema import Draft7Validator

#: The schema version written into every document, and the one validation needs.
VERSION = "0.3.0"
AGGREGATE = "eval.schema.json"
INSTANCE = "instance_level_eval.schema.json"
#: The distribution that ships the schemas, and where its files hold them.
DISTRIBUTION = "every-eval-ever"
PACKAGED = "every_eval_ever/schemas"
#: The setting naming a folder of the schema files (``--schemas`` names one for one command).
ENV = "CLINEVAL_EEE_SCHEMAS"
#: The values of ``source_metadata.evaluator_relationship`` that schema version ``VERSION``
#: allows (the export settings' choices; validation checks them against the schema itself).
RELATIONSHIPS = ("first_party", "third_party", "collaborative", "other")
#: How to get the schemas, in one sentence.
HOW = (f"install {DISTRIBUTION}=={VERSION} in this environment (Python >= 3.12), or point "
       f"--schemas or {ENV} at a folder holding its {AGGREGATE} and {INSTANCE} (the wheel's "
       f"{PACKAGED}/: pip download --no-deps {DISTRIBUTION}=={VERSION})")


def installed() -> Path | None:
    """The schema folder of an installed ``every-eval-ever`` distribution; None without one."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    folder = Path(str(dist.locate_file(PACKAGED)))
    return folder if (folder / AGGREGATE).is_file() else None


def find(given: Path | str | None = None) -> Path | None:
    """The folder of the schemas: ``given`` (``--schemas``), else ``CLINEVAL_EEE_SCHEMAS``, else
    an installed distribution's; None when there is none. A named folder without both files
    is a :class:`ConfigError` naming the setting."""
    named, setting = (given, "--schemas") if given else (os.environ.get(ENV), ENV)
    if not named:
        return installed()
    folder = Path(named)
    absent = [name for name in (AGGREGATE, INSTANCE) if not (folder / name).is_file()]
    if absent:
        raise ConfigError(f"{setting}={named}: no {' or '.join(absent)} there; it names the "
                          f"folder of the Every Eval Ever {VERSION} schemas")
    return folder


def required(given: Path | str | None = None) -> Path:
    """:func:`find`'s folder, or a :class:`ConfigError` saying how to get the schemas."""
    folder = find(given)
    if folder is None:
        raise ConfigError(f"validating needs the Every Eval Ever {VERSION} JSON schemas, "
                          f"and none were found: {HOW}")
    return folder


@cache
def validator(folder: Path, name: str) -> Draft7Validator:
    """The validator of the schema file ``name`` (``AGGREGATE`` or ``INSTANCE``) in ``folder``;
    a file of another schema version is a :class:`ConfigError`."""
    from jsonschema import Draft7Validator  # when validating: the plan's schemas load this module

    path = folder / name
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: not a readable JSON schema ({err})") from None
    found = schema.get("version") if isinstance(schema, dict) else None
    if found != VERSION:
        raise ConfigError(f"{path}: Every Eval Ever schema version {found!r}; clineval writes "
                          f"version {VERSION}: {HOW}")
    Draft7Validator.check_schema(schema)
    return Draft7Validator(schema)


def _field(error: Any) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "(document)"


def check(folder: Path, name: str, document: Any, where: Path | str,
          line: int | None = None) -> None:
    """Raise :class:`DataError` for the problem of ``document`` under the schema ``name`` of
    ``folder`` that jsonschema finds most relevant (:func:`jsonschema.exceptions.best_match`)."""
    from jsonschema.exceptions import best_match

    error = best_match(validator(folder, name).iter_errors(document))
    if error is not None:
        raise DataError(where, None, _field(error),
                        f"not valid against Every Eval Ever {VERSION} {name}: {error.message}",
                        line=line)


def check_aggregate(folder: Path, document: Any, where: Path | str) -> None:
    check(folder, AGGREGATE, document, where)


def check_instances(folder: Path, lines: Iterable[Any], where: Path | str) -> None:
    for number, line in enumerate(lines, start=1):
        check(folder, INSTANCE, line, where, line=number)
