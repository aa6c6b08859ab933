"""``clineval new-benchmark NAME``: a working benchmark package to start from, outside the
repository (docs/extending.md, Start from a skeleton).

The package is a yes/no question task: a JSON Lines reader, a synthetic demo in that format,
the answer's reading, its settings, its benchmark class (its metrics declared once, its
leaderboard column, an oracle baseline), its task config with the prompt wording, its table
config, a ``pyproject.toml`` with the entry point and a README saying what to change first.
It is written from the files of ``template/``: their paths with ``NAME`` replaced by the name
and ``.tmpl`` dropped, their text with ``{{name}}`` (the name), ``{{Name}}`` (its class-name
form), ``{{NAME}}`` (upper case), ``{{title}}`` (its name for people) and ``{{dist}}`` (the
distribution's name) filled in.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from clineval.benchmarks import registry
from clineval.config.locate import available
from clineval.config.out_folder import writable_folder
from clineval.errors import ConfigError
from clineval.io import atomic_directory, write_text

TEMPLATE = Path(__file__).parent / "template"
#: A lower-case identifier whose words are joined by single underscores.
NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def values(name: str) -> dict[str, str]:
    """What the templates' placeholders become for the benchmark ``name``."""
    words = [w.capitalize() for w in name.split("_")]
    return {"name": name, "Name": "".join(words), "NAME": name.upper(), "title": " ".join(words),
            "dist": name.replace("_", "-")}


def check_name(name: str, conf_dir: Path) -> None:
    """ConfigError unless ``name`` can name a new benchmark: a lower-case identifier that no
    benchmark has and no task or table config of ``conf_dir`` would shadow."""
    if not NAME.fullmatch(name) or keyword.iskeyword(name):
        raise ConfigError(f"new-benchmark {name!r}: a benchmark's name is a lower-case Python "
                          "identifier, not a keyword (a letter, then letters, digits and single "
                          "underscores: my_bench)")
    known = registry.sources()
    if name in known:
        raise ConfigError(f"new-benchmark {name!r}: a benchmark of that name exists "
                          f"({known[name].origin}); choose another name")
    for group, option in (("task", name), ("table", f"{name}_by_mode")):
        if option in available(conf_dir, group):
            raise ConfigError(f"new-benchmark {name!r}: the config {group}/{option}.yaml exists "
                              f"(under {conf_dir}) and would be used instead of the package's; "
                              "choose another name")


def fill(text: str, filled: dict[str, str]) -> str:
    """``text`` with each ``{{key}}`` replaced by its value."""
    return _PLACEHOLDER.sub(lambda m: filled[m.group(1)], text)


def write_skeleton(name: str, parent: str | Path, conf_dir: Path) -> Path:
    """Write the package of the benchmark ``name`` into ``parent/name`` (a new folder) and
    return that folder; a ``parent`` that cannot hold it (``--dir``) is refused first."""
    check_name(name, conf_dir)
    folder = writable_folder(parent, "--dir") / name
    if folder.exists() or folder.is_symlink():  # a link to nothing is there too
        raise ConfigError(f"new-benchmark {name!r}: {folder} exists; it writes a new folder only "
                          "(choose another --dir or name)")
    filled = values(name)
    try:
        with atomic_directory(folder) as tmp:
            for template in sorted(TEMPLATE.rglob("*.tmpl")):
                relative = template.relative_to(TEMPLATE).with_suffix("")
                out = tmp.joinpath(*(part.replace("NAME", name) for part in relative.parts))
                out.parent.mkdir(parents=True, exist_ok=True)
                write_text(out, fill(template.read_text(encoding="utf-8"), filled))
    except OSError as err:
        raise ConfigError(f"new-benchmark {name!r}: cannot write {folder} "
                          f"({' '.join(str(err).split())})") from None
    return folder
