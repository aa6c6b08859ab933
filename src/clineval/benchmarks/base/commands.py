"""A benchmark's own tools, ``clineval <benchmark> <tool>``: declared in its package's
``commands.py`` as ``COMMANDS`` (tool name -> :class:`Command`), found by the registry
(:data:`clineval.benchmarks.TOOLS`) and imported only when the command line names the benchmark."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """One tool: its ``help`` line, the options it adds to its parser, and ``run`` (the parsed
    arguments -> the exit status; a ConfigError or DataError exits 2 with its message)."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
