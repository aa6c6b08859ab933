"""A MedEval task's source files (demo or official) and their records with splits assigned.

Sentence tasks read ``data.sentences`` (the sentences CSV). Report tasks read any of
``data.reports`` (the reports CSV), ``data.openi`` (Open-i CSV, one XML file or a folder of
them) and ``data.mimic_cxr`` (MIMIC-CXR's study list; code prediction also needs
``data.chexpert``; ``data.mimic_cxr_split`` is MIMIC-CXR-JPG's official split file). Each
source's records get the file's splits or seeded 7:1:2 ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clineval.benchmarks.base.settings import read_own
from clineval.benchmarks.base.sources import MissingSource, require
from clineval.benchmarks.medeval import formats, mimic_cxr, openi, synthetic
from clineval.benchmarks.medeval.examples import SENTENCE_TASKS
from clineval.benchmarks.medeval.settings import Data, ReportData
from clineval.benchmarks.medeval.splits import PAPER_RATIO, assign_splits
from clineval.errors import ConfigError, DataError
from clineval.io import Record

BENCHMARK = "MedEval"
FORMAT_WHERE = ("your own labelled data in MedEval's input format (docs/medeval.md; the VA "
                "data of the paper is not public)")
REPORT_SOURCES = ("reports", "openi", "mimic_cxr")
DEMO_FILES = {
    "sentences": "sentences.csv",
    "reports": "reports.csv",
    "openi": "openi/9001.xml",
    "mimic_cxr": "mimic-cxr/cxr-study-list.csv",
    "chexpert": "mimic-cxr/mimic-cxr-2.0.0-chexpert.csv",
    "mimic_cxr_split": "mimic-cxr/mimic-cxr-2.0.0-split.csv",
}


def task_kind(task: Record) -> str:
    """The task's ``data.task`` (one of ``TASKS``: the task's schema checks it)."""
    return task["data"]["task"]


def _demo_names(kind: str) -> tuple[str, ...]:
    if kind in SENTENCE_TASKS:
        return ("sentences",)
    return ("reports", "mimic_cxr", "chexpert", "mimic_cxr_split") if kind == "codes" else (
        "reports", "openi", "mimic_cxr", "mimic_cxr_split")


def _official(data: Mapping[str, Any], kind: str, task_name: str) -> dict[str, Path]:
    def need(key: str, description: str, where: str) -> Path:
        return require(data.get(key), task_name, description, where,
                       f"tasks.{task_name}.data.{key}", BENCHMARK)

    if kind in SENTENCE_TASKS:
        return {"sentences": need("sentences", "a sentences CSV in MedEval's format",
                                  FORMAT_WHERE)}
    given = [k for k in REPORT_SOURCES if data.get(k) not in (None, "")]
    if not given:
        raise MissingSource(task_name, "a reports CSV in MedEval's format, Open-i reports or "
                            "MIMIC-CXR reports", FORMAT_WHERE, f"tasks.{task_name}.data.reports",
                            None, BENCHMARK)
    files: dict[str, Path] = {}
    if "reports" in given:
        files["reports"] = need("reports", "a reports CSV in MedEval's format", FORMAT_WHERE)
    if "openi" in given:
        if kind == "codes":
            raise ConfigError(f"tasks.{task_name}.data.openi: Open-i reports carry no code "
                              "labels; code prediction reads the reports CSV or MIMIC-CXR")
        path = Path(data["openi"])
        if path.is_dir():
            for xml in openi.xml_files(path):
                files[f"openi:{xml.name}"] = xml
        else:
            files["openi"] = need("openi", "the Open-i reports (CSV or XML)", openi.WHERE)
    if "mimic_cxr" in given:
        files["mimic_cxr"] = need("mimic_cxr", "MIMIC-CXR's cxr-study-list.csv(.gz)",
                                  mimic_cxr.WHERE)
        if kind == "codes" or data.get("chexpert"):
            files["chexpert"] = need("chexpert", "MIMIC-CXR-JPG's CheXpert label CSV",
                                     mimic_cxr.CHEXPERT_WHERE)
        if data.get("mimic_cxr_split"):
            files["mimic_cxr_split"] = need("mimic_cxr_split", "MIMIC-CXR-JPG's split CSV",
                                            mimic_cxr.SPLIT_WHERE)
    return files


def source_files(task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
    data = task["data"]
    kind = task_kind(task)
    if data["source"] == "demo":
        base = data_root / "demo" / task_name
        return {name: base / DEMO_FILES[name] for name in _demo_names(kind)}
    return _official(data, kind, task_name)


#: The least data-access tier of each official source, by role (an Open-i folder's files are
#: ``openi:<name>``): a CSV in MedEval's format holds the paper's VA data, which is unreleased
#: (the task's ``access`` adds ``credentialed`` for MIMIC-derived rows, ``private`` for yours);
#: Open-i is public; MIMIC-CXR's files are credentialed (PhysioNet).
TIERS = {"sentences": "unreleased", "reports": "unreleased", "openi": "public",
         "mimic_cxr": "credentialed", "chexpert": "credentialed",
         "mimic_cxr_split": "credentialed"}


def source_tiers(sources: Mapping[str, Path]) -> dict[str, str]:
    """Each official source's least tier (:data:`TIERS`; a role it does not name: unreleased)."""
    return {role: TIERS.get(role.partition(":")[0], "unreleased") for role in sources}


def write_demo(sources: Mapping[str, Path], seed: int = 0) -> None:
    if "sentences" in sources:
        synthetic.write_sentences(sources["sentences"])
    if "reports" in sources:
        synthetic.write_reports(sources["reports"], seed)
    if "openi" in sources:
        synthetic.write_openi_xml(sources["openi"])
    if "mimic_cxr" in sources:
        def beside(name: str) -> Path:
            return sources.get(name) or sources["mimic_cxr"].with_name(Path(DEMO_FILES[name]).name)

        synthetic.write_mimic_cxr(sources["mimic_cxr"], beside("chexpert"),
                                  beside("mimic_cxr_split"), seed)


def _split(records: list[Record], data: Mapping[str, Any]) -> list[Record]:
    seed = read_own(Data, data, "data").seed
    return assign_splits(records, seed, data.get("split") or PAPER_RATIO)


def load_records(kind: str, data: Mapping[str, Any], sources: Mapping[str, Path]) -> list[Record]:
    """The task's source records with splits, restricted to ``data.domains`` when set."""
    if kind in SENTENCE_TASKS:
        records = _split(formats.read_sentences(sources["sentences"]), data)
    else:
        records = []
        code_sets = data.get("code_sets") if kind == "codes" else None
        if kind == "codes" and not code_sets:
            raise ConfigError("code prediction needs data.code_sets (the codes of each domain)")
        if "reports" in sources:
            records += _split(formats.read_reports(sources["reports"], code_sets), data)
        xmls = [p for name, p in sorted(sources.items()) if name.startswith("openi")]
        if xmls:
            read = (openi.read_openi_csv(xmls[0]) if xmls[0].suffix.lower() in (".csv", ".gz")
                    else openi.read_openi_xmls(xmls))
            records += _split(read, data)
        if "mimic_cxr" in sources:
            root = data.get("mimic_cxr_root")
            found = mimic_cxr.read_reports(sources["mimic_cxr"], Path(root) if root else None)
            if "chexpert" in sources:
                spec = (code_sets or {}).get("chest") or {"codes": mimic_cxr.CHEXPERT_CODES}
                typed = read_own(ReportData, data, "data")
                labels = mimic_cxr.read_chexpert(sources["chexpert"], tuple(spec["codes"]),
                                                 typed.chexpert_uncertain, typed.chexpert_blank)
                found = mimic_cxr.with_codes(found, labels)
            if "mimic_cxr_split" in sources:
                found = mimic_cxr.with_split(found, mimic_cxr.read_split(
                    sources["mimic_cxr_split"]))
            records += _split(found, data)
        seen: dict[str, str] = {}
        for record in records:
            if record["id"] in seen:
                raise DataError(record["source"], record["row"], "id",
                                f"{record['id']!r} is also an id in {seen[record['id']]}")
            seen[record["id"]] = record["source"]
    domains = data.get("domains")
    if domains is not None:
        records = [r for r in records if r["domain"] in set(domains)]
    return records


#: Report sources whose every report is a chest radiograph report (domain ``chest``).
CHEST_ONLY_SOURCES = {"openi": "Open-i reports", "mimic_cxr": "MIMIC-CXR reports"}


def possible_groups(data: Mapping[str, Any], kind: str) -> tuple[set[str], str] | None:
    """The domain groups a task's examples can fall in, and why, when the settings alone tell
    (``data.domains`` set, or official reports from chest-only sources); None: unknown before
    the data is read."""
    chest = tuple(data.get("chest_domains") or (formats.CHEST,))
    if data.get("domains"):
        return ({formats.domain_group(d, chest) for d in data["domains"]},
                f"data.domains={list(data['domains'])}")
    if data.get("source") != "official" or kind in SENTENCE_TASKS:
        return None
    given = [k for k in REPORT_SOURCES if data.get(k) not in (None, "")]
    if given and all(k in CHEST_ONLY_SOURCES for k in given):
        names = " and ".join(CHEST_ONLY_SOURCES[k] for k in given)
        return {formats.domain_group("chest", chest)}, f"{names}: chest radiographs only"
    return None
