"""Time until the explorer's largest page is interactive, in headless Chromium.

The page's script sets the performance mark ``explorer-ready`` once it has read its data,
applied the address's state and listed the first page of examples; its ``startTime`` (ms
from the navigation's start) is the figure reported. A report folder (``results/report``) is
searched for its cell page with the most examples (``examples/<model>/<task>/<mode>.html``,
counted from the page's embedded data); a path to one page is timed as it is. With
``--synthetic`` the script builds the explorer's full-scale cell of 3,141 examples
(``tests/explorer_cells.py``, the page the explorer's browser test opens) and times that.

Each page is opened ``--repeat`` times, from a blank page each time (a fresh load, no
history), in one headless Chromium (Debian's ``chromium`` and ``chromium-driver``, through
``tests/browser.py``). With ``--baseline`` (another report folder or page: another checkout's
demo, say) both are timed in turns, A B A B, so that the machine's load falls on both alike,
and printed side by side with the ratio of their medians.

    python bench/explorer_ready.py results/report
    python bench/explorer_ready.py results/report --baseline ../main/results/report --repeat 9
    python bench/explorer_ready.py --synthetic --repeat 5 --json ready.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from browser import browser  # noqa: E402  (tests/browser.py, the tests' helper)

_DATA = re.compile(r'<script type="application/json" id="data">(.*?)</script>', re.S)

#: Wait until the page's script has run, then read its mark (null where it set none).
_READY = """
const done = arguments[0];
const wait = () => {
  if (document.body && document.body.dataset.ready === 'true') {
    const mark = performance.getEntriesByName('explorer-ready')[0];
    const nav = performance.getEntriesByType('navigation')[0];
    done({ready: mark ? mark.startTime : null,
          dom: nav ? nav.domContentLoadedEventEnd : null,
          shown: document.querySelectorAll('#examples article').length});
  } else {
    setTimeout(wait, 5);
  }
};
wait();
"""


def examples_in(page: Path) -> int:
    """How many examples a cell page embeds (0 for a page without the explorer's data)."""
    found = _DATA.search(page.read_text(encoding="utf-8"))
    return len(json.loads(found.group(1)).get("examples", [])) if found else 0


def largest_page(where: Path) -> Path:
    """``where`` itself if it is a page, else the cell page with the most examples below its
    ``examples/`` folder (the larger file of two with as many)."""
    if where.is_file():
        return where
    pages = sorted((where / "examples").glob("*/*/*.html"))
    if not pages:
        sys.exit(f"{where}: no explorer page (examples/<model>/<task>/<mode>.html); build the "
                 "report first (make demo)")
    return max(pages, key=lambda p: (examples_in(p), p.stat().st_size))


def synthetic_page(root: Path) -> Path:
    """The explorer's full-scale page: a MedCalc-Bench cell of 3,141 examples."""
    from explorer_cells import explorer

    return explorer(root)["a"]


def time_once(driver: Any, page: Path) -> dict[str, float]:
    driver.get("about:blank")
    driver.get(page.resolve().as_uri())
    found = driver.execute_async_script(_READY)
    if found["ready"] is None:
        sys.exit(f"{page}: the page set no 'explorer-ready' mark (not an explorer page of "
                 "this version?)")
    return found


def summary(times: list[float]) -> dict[str, float]:
    return {"median": median(times), "min": min(times), "max": max(times)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", nargs="?", type=Path, default=Path("results/report"),
                        help="a report folder (its largest cell page) or one page")
    parser.add_argument("--baseline", type=Path,
                        help="another report folder or page, timed in turns with the first")
    parser.add_argument("--synthetic", action="store_true",
                        help="time the full-scale 3,141-example page (built in a temporary "
                             "folder) instead of a report's")
    parser.add_argument("--repeat", type=int, default=7, help="loads of each page (default 7)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat needs at least 1")
    with tempfile.TemporaryDirectory(prefix="explorer-ready-") as tmp:
        sides = {"this": synthetic_page(Path(tmp)) if args.synthetic
                 else largest_page(args.report)}
        if args.baseline is not None:
            sides["baseline"] = largest_page(args.baseline)
        counts = {side: examples_in(page) for side, page in sides.items()}
        for side, page in sides.items():
            print(f"{side}: {page} ({counts[side]} examples, "
                  f"{page.stat().st_size / 1e6:.2f} MB)")
        times: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
        with browser() as driver:
            for page in sides.values():  # one load each first, not counted (warm-up)
                time_once(driver, page)
            for _ in range(args.repeat):
                for side, page in sides.items():
                    times[side].append(time_once(driver, page))
    figures = {side: {"page": str(sides[side]), "examples": counts[side],
                      "listed": found[0]["shown"],
                      "ready_ms": summary([t["ready"] for t in found]),
                      "dom_content_loaded_ms": summary([t["dom"] for t in found]),
                      "loads": len(found)}
               for side, found in times.items()}
    print(f"\nexplorer-ready (ms from navigation start), {args.repeat} loads each:")
    print(f"{'':10} {'median':>9} {'min':>9} {'max':>9}")
    for side, found in figures.items():
        ready = found["ready_ms"]
        print(f"{side:10} {ready['median']:9.1f} {ready['min']:9.1f} {ready['max']:9.1f}")
    if "baseline" in figures:
        ratio = figures["this"]["ready_ms"]["median"] / figures["baseline"]["ready_ms"]["median"]
        figures["ratio_of_medians"] = ratio
        print(f"ratio this / baseline (medians): {ratio:.2f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
