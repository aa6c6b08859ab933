"""Open-i Indiana University chest X-ray reports (Demner-Fushman et al., 2016) as report records.

Two distributions: the XML collection (``ecgen-radiology/<n>.xml``: ``uId/@id`` and
``AbstractText`` elements labelled ``FINDINGS`` and ``IMPRESSION``; ``MeSH/major``) and the
common CSV (``uid, MeSH, Problems, image, indication, comparison, findings, impression``). Every
report is a chest X-ray; Open-i gives no code labels (``codes`` None) and no splits. The
de-identification masks (``XXXX``) are kept as released.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from clineval.errors import DataError
from clineval.io import Record
from clineval.mimic.csvfile import read_rows

WHERE = ("Open-i, Indiana University chest X-ray collection (CC BY-NC-ND 4.0): "
         "https://openi.nlm.nih.gov/faq (NLMCXR_reports.tgz), or its common CSV "
         "indiana_reports.csv")
CSV_COLUMNS = ("uid", "MeSH", "findings", "impression")


def _record(path: Path, row: int | str, uid: str, findings: str, impression: str,
            mesh: str) -> Record:
    return {
        "id": f"openi-{uid}",
        "domain": "chest",
        "modality": "xray",
        "split": None,
        "source": path.name,
        "row": row,
        "format": "openi-xml" if path.suffix.lower() == ".xml" else "openi-csv",
        "findings": " ".join(findings.split()),
        "impression": " ".join(impression.split()),
        "codes": None,
        "mesh_normal": mesh.strip().lower() == "normal",
    }


def read_openi_csv(path: Path) -> list[Record]:
    """The common CSV; rows with neither findings nor impression are left out."""
    records, seen = [], set()
    for row, raw in read_rows(path, CSV_COLUMNS):
        uid = raw["uid"].strip()
        if not uid:
            raise DataError(path, row, "uid", "empty: expected a value")
        if uid in seen:
            raise DataError(path, row, "uid", f"{uid!r} appears twice: expected each id once")
        seen.add(uid)
        if raw["findings"].strip() or raw["impression"].strip():
            records.append(_record(path, row, uid, raw["findings"], raw["impression"], raw["MeSH"]))
    if not records:
        raise DataError(path, None, None, "no report with findings or impression")
    return records


def read_openi_xml(path: Path) -> Record | None:
    """One report of the XML collection (None when it has neither findings nor impression)."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise DataError(path, err.position[0], None, f"not well-formed XML: {err}") from err
    uid_node = root.find(".//uId")
    uid = (uid_node.get("id") or "").strip() if uid_node is not None else ""
    if not uid:
        raise DataError(path, None, "uId", "missing <uId id=...>")
    sections = {
        (node.get("Label") or "").upper(): "".join(node.itertext())
        for node in root.iter("AbstractText")
    }
    if "FINDINGS" not in sections and "IMPRESSION" not in sections:
        raise DataError(path, None, "AbstractText",
                        "no AbstractText labelled FINDINGS or IMPRESSION")
    findings, impression = sections.get("FINDINGS", ""), sections.get("IMPRESSION", "")
    if not findings.strip() and not impression.strip():
        return None
    mesh = ";".join("".join(n.itertext()) for n in root.iter("major"))
    return _record(path, "-", uid.removeprefix("CXR"), findings, impression, mesh)


def xml_files(path: Path) -> list[Path]:
    """An XML file, or every ``*.xml`` of a directory (sorted)."""
    if path.is_dir():
        files = sorted(path.glob("*.xml"))
        if not files:
            raise DataError(path, None, None, "the directory holds no .xml file")
        return files
    return [path]


def read_openi_xmls(paths: list[Path]) -> list[Record]:
    records, seen = [], {}
    for path in paths:
        record = read_openi_xml(path)
        if record is None:
            continue
        if record["id"] in seen:
            raise DataError(path, None, "uId", f"{record['id']} is also in {seen[record['id']]}")
        seen[record["id"]] = path.name
        records.append(record)
    return records
