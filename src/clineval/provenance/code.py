"""Code fingerprints: which source files made an artifact, by content hash.

A fingerprint covers a set of root modules (a package root: every module below it) and the
modules they import, transitively, within the top-level packages named to follow (``clineval``
and a benchmark's own). Imports are found by a static scan of each file's import statements, so
nothing is imported to fingerprint it; a module is located through importlib (the loaded module,
else the search path of its top-level package), so a package installed anywhere is found the
same way as clineval's own. Its ``modules`` map each module's dotted name to the sha256 of its
file's bytes; its ``sha`` hashes those pairs, sorted. Each file is read and scanned once per
process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

from clineval.provenance.hashing import sha256_obj

#: One import statement: ``from X import Y`` (Y possibly a parenthesized list over several lines)
#: or ``import X``. A scan of the text, checked against the parser over clineval's own modules
#: (tests/platform/test_code_fingerprint.py): a line of a docstring that reads as an import can
#: only add a module, never lose one.
IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)"
                    r"|import[ \t]+([^\n#;]+))", re.M)


@dataclass(frozen=True)
class Fingerprint:
    """The modules of a piece of code, each with the sha256 of its file."""

    modules: Mapping[str, str]

    @cached_property
    def sha(self) -> str:
        return sha256_obj(sorted(self.modules.items()))

    def changed(self, recorded: Mapping[str, str]) -> list[str]:
        """The modules whose file differs from ``recorded`` (name -> sha256), or that only one
        of the two has, sorted."""
        names = set(self.modules) | set(recorded)
        return sorted(n for n in names if self.modules.get(n) != recorded.get(n))

    def __or__(self, other: Fingerprint) -> Fingerprint:
        return Fingerprint({**self.modules, **other.modules})


def _search_path(top: str) -> list[str]:
    """Where the submodules of top-level package ``top`` lie (none: not a package here)."""
    loaded = sys.modules.get(top)
    if loaded is not None:
        return list(getattr(loaded, "__path__", None) or [])
    spec = importlib.util.find_spec(top)  # a top-level name: imports nothing
    return list(spec.submodule_search_locations or []) if spec is not None else []


@cache
def module_file(name: str) -> Path | None:
    """The source file of module ``name`` (a package's ``__init__.py``); None when it has none
    here (a compiled or missing module)."""
    loaded = sys.modules.get(name)
    if getattr(loaded, "__file__", None):
        path = Path(loaded.__file__)  # type: ignore[union-attr, arg-type]
        return path if path.suffix == ".py" else None
    top, _, rest = name.partition(".")
    if not rest:
        spec = importlib.util.find_spec(top)
        return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None
    for base in _search_path(top):
        stem = Path(base, *rest.split("."))
        for path in (stem / "__init__.py", stem.with_suffix(".py")):
            if path.is_file():
                return path
    return None


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _absolute(base: str, package: str) -> str:
    """``base`` of a ``from`` statement, relative ones resolved against ``package``."""
    level = len(base) - len(base.lstrip("."))
    if not level:
        return base
    anchor = package.split(".")[: len(package.split(".")) - level + 1]
    rest = base[level:]
    return ".".join([*anchor, rest] if rest else anchor)


def _names(listed: str) -> list[str]:
    """The names of an import list (``a as b, c``), without aliases, parentheses, comments and
    line continuations."""
    text = re.sub(r"#[^\n]*|[()\\]", " ", listed)
    return [part.split()[0] for part in text.split(",") if part.strip()]


def scan(name: str) -> tuple[str, tuple[str, ...]] | None:
    """sha256 of the module's file and the modules its import statements name (``from package
    import name``: the submodule where ``name`` is one, else the package); None when the module
    has no source file here."""
    path = module_file(name)
    if path is None:
        return None
    stat = path.stat()
    return _scan_file(name, path, stat.st_size, stat.st_mtime_ns)


@cache
def _scan_file(name: str, path: Path, size: int, mtime_ns: int) -> tuple[str, tuple[str, ...]]:
    """:func:`scan` of one version of the file (its size and time stamp): read once."""
    data = path.read_bytes()
    package = _package_of(name, path)
    found: list[str] = []
    for base, listed, plain in IMPORT.findall(data.decode("utf-8", "replace")):
        if plain:
            found += _names(plain)
            continue
        module = _absolute(base, package)
        # ``from package import module`` loads the module; other names, the package
        found += [f"{module}.{item}" if module_file(f"{module}.{item}") else module
                  for item in _names(listed) if item != "*"] or [module]
    return hashlib.sha256(data).hexdigest(), tuple(dict.fromkeys(found))


def package_modules(name: str) -> list[str]:
    """The package ``name`` and every module below it (a plain module: itself)."""
    path = module_file(name)
    if path is None:
        return []
    if path.name != "__init__.py":
        return [name]
    root = path.parent
    return [".".join((name, *p.relative_to(root).with_suffix("").parts)).removesuffix(
        ".__init__") for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts]


def _followed(name: str, follow: Iterable[str]) -> bool:
    return any(name == top or name.startswith(top + ".") for top in follow)


def fingerprint(roots: Iterable[str], follow: Iterable[str]) -> Fingerprint:
    """The fingerprint of modules ``roots`` (a package: all of its modules) and every module
    they import, transitively, below the top-level packages ``follow``."""
    follow = tuple(follow)
    todo = [m for root in roots for m in package_modules(root)]
    modules: dict[str, str] = {}
    while todo:
        name = todo.pop()
        if name in modules:
            continue
        scanned = scan(name)
        if scanned is None:
            continue
        modules[name], imported = scanned
        todo += [m for m in imported if _followed(m, follow) and m not in modules]
    return Fingerprint(dict(sorted(modules.items())))


def files(fingerprint: Fingerprint) -> list[Path]:
    """The source file of each module of ``fingerprint``."""
    return [path for name in fingerprint.modules if (path := module_file(name)) is not None]
