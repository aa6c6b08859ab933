"""Where a composed setting came from: the override that set it, else the config file.

The files are those Hydra composed, read again in its order: ``config.yaml``'s defaults (the
grid), each defaults list entry (``/task@tasks.medcalc: medcalc`` -> ``conf/task/medcalc.yaml``
at ``tasks.medcalc``) before the file's own keys, and a model preset (``{preset: name}``)
before the keys beside it. The last of them that sets a key is its origin; a key that none
sets (a missing one) is reported at the file of its section.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from clineval.config.locate import search_path
from clineval.config.presets import PRESET_KEY

_OVERRIDE = re.compile(r"^(?:~|\+\+|\+)?(?P<key>[^=]+?)(?:=(?P<value>.*))?$", re.S)


@dataclass(frozen=True)
class Layer:
    """A config file's own keys, placed at ``package`` (dotted; ``""``: the root)."""

    file: Path
    package: str
    body: Mapping[str, Any]


def _dotted(key: str) -> str:
    """``a[0].b`` as an override writes it: ``a.0.b``."""
    return re.sub(r"\[(\d+)\]", r".\1", key).lstrip(".")


def _under(key: str, package: str) -> str | None:
    """``key`` relative to ``package`` (both dotted), or None when it lies elsewhere."""
    key, package = _dotted(key), _dotted(package)
    if not package:
        return key
    if key == package:
        return ""
    return key[len(package) + 1:] if key.startswith(package + ".") else None


def _sets(body: Any, key: str) -> bool:
    """Whether ``body`` sets ``key`` (dotted): its value, or a whole value above it."""
    node = body
    for part in key.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, Mapping) and part.isdigit() and int(part) in node:
            node = node[int(part)]  # a YAML integer key (calculator ids)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return not isinstance(node, Mapping) and node is not body
    return True


def _load(path: Path) -> tuple[list[Any], dict[str, Any], bool]:
    """The file's defaults list, its own keys, and whether it is ``@package _global_``."""
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    content = yaml.safe_load(text) or {}
    if not isinstance(content, dict):
        return [], {}, False
    defaults = content.pop("defaults", None) or []
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    return list(defaults), content, any("@package _global_" in line for line in header)


class Origins:
    """The origin of any key of the config composed from ``conf_dir`` with ``overrides``."""

    def __init__(self, conf_dir: Path, overrides: Sequence[str] = ()):
        self.conf_dir = conf_dir
        self.overrides = [str(o) for o in overrides]

    def _parsed(self) -> list[tuple[str, str, str | None]]:
        """(the override, its key, its value) of each override."""
        found = []
        for override in self.overrides:
            match = _OVERRIDE.match(override.strip())
            if match:
                found.append((override, match["key"].strip(), match["value"]))
        return found

    def _is_group(self, key: str) -> bool:
        group = key.split("@", 1)[0].lstrip("/")
        return "@" in key or ("." not in key and any((root / group).is_dir()
                                                     for root in self.roots))

    @cached_property
    def roots(self) -> list[Path]:
        """The config folders Hydra searched, in its order (:func:`search_path`)."""
        return search_path(self.conf_dir)

    def _found(self, relative: str) -> Path:
        """``<root>/<relative>`` of the first root holding it (else the project's)."""
        return next((r / relative for r in self.roots if (r / relative).is_file()),
                    self.conf_dir / relative)

    def of(self, key: str) -> str:
        """``override '<o>'`` or ``<conf>/<file>.yaml``: what set ``key`` (a dotted path)."""
        for raw, name, _ in reversed(self._parsed()):
            if not self._is_group(name) and _under(key, name) is not None:
                return f"override {raw!r}"
        return self._show(self._file(key))

    def _show(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.conf_dir.parent))
        except ValueError:
            return str(path)

    def _file(self, key: str) -> Path:
        for layer in reversed(self.layers):
            rest = _under(key, layer.package)
            if rest is not None and rest and _sets(layer.body, rest):
                return layer.file
        owners = [layer for layer in self.layers if _under(key, layer.package) is not None]
        best = max(owners, key=lambda layer: len(layer.package), default=None)
        return best.file if best else self.conf_dir / "config.yaml"

    @cached_property
    def layers(self) -> list[Layer]:
        """The composed files in Hydra's order (later ones win)."""
        choices = {name.lstrip("/"): value for _, name, value in self._parsed()
                   if self._is_group(name) and "@" not in name and value}
        layers = self._file_layers(self.conf_dir / "config.yaml", "", choices)
        for _, name, value in self._parsed():
            if "@" in name and value:
                group, package = name.lstrip("/").split("@", 1)
                layers += self._file_layers(self._found(f"{group}/{value}.yaml"), package)
        return layers

    def _file_layers(self, path: Path, package: str,
                     choices: Mapping[str, str] | None = None) -> list[Layer]:
        """A file's defaults (each a file, recursively) and its own keys, at ``_self_`` (by
        default after its defaults)."""
        defaults, body, global_ = _load(path)
        package = "" if global_ else package
        root = next((r for r in self.roots if path.is_relative_to(r)), self.conf_dir)
        group_dir = str(path.parent.relative_to(root)).strip(".")
        own = self._with_presets(Layer(path, package, body))
        layers: list[Layer] = []
        for entry in defaults:
            if entry == "_self_":
                layers += own
                own = []
                continue
            found = self._entry(entry, group_dir, package, choices or {})
            if found is not None:
                layers += self._file_layers(*found)
        return layers + own

    def _entry(self, entry: Any, group_dir: str, package: str,
               choices: Mapping[str, str]) -> tuple[Path, str] | None:
        """The file and package of a defaults list entry: ``group@package: option`` (a group's
        option, possibly chosen by an override) or ``path@package`` (a config file)."""
        option: Any = None
        if isinstance(entry, Mapping) and len(entry) == 1:
            (name, option), = entry.items()
            name = str(name).removeprefix("override ").strip()
            if not isinstance(option, str):
                return None
        elif isinstance(entry, str):
            name = entry
        else:
            return None
        target, _, at = name.partition("@")
        path = target[1:] if target.startswith("/") else f"{group_dir}/{target}".strip("/")
        if option is not None:
            path = f"{path}/{choices.get(path, option)}"
        where = ".".join(p for p in (package, at) if p) if at else package
        return self._found(f"{path}.yaml"), where

    def _with_presets(self, layer: Layer) -> list[Layer]:
        """The model presets a layer names (``{preset: name}``), each before the layer."""
        found: list[Layer] = []

        def walk(node: Any, where: str) -> None:
            if isinstance(node, Mapping):
                if isinstance(node.get(PRESET_KEY), str):
                    found.extend(self._file_layers(
                        self._found(f"model/{node[PRESET_KEY]}.yaml"), where))
                for key, value in node.items():
                    walk(value, f"{where}.{key}" if where else str(key))

        walk(layer.body, layer.package)
        return [*found, layer]
