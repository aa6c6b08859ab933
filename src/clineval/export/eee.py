"""A model's results on a task in the Every Eval Ever (EEE) schema (docs/export.md).

One export is one model x task: an aggregate document (``eval.schema.json``) with a result per
mode and headline metric of the task's cells, and instance records (``*.jsonl``,
``instance_level_eval.schema.json``), one per scored row. Everything comes from the export's
identity (written by :mod:`clineval.workflow.plan.identities`: the model, the task, the settings
and each cell's identities) and the files the workflow wrote for its cells (:class:`CellInput`):

- a result's score is the cell's headline number (its benchmark's ``headline``), its
  uncertainty the percentile bootstrap interval the cell's table computes (the same code and
  settings, so the numbers are equal); its ids point at the cell's scoring, generation and
  requests identities;
- an instance record is one scored row: the example id, the prompt's last user message and the
  row's reference, the model's output, what the scoring read from it, the row's value of a
  headline metric (the first of the benchmark's accuracies, else of its headline metrics, that
  the row has; the other metrics' values in ``metadata``), the row's ``copied`` and each
  reading's verdict (``verdict.<reading>``, as the explorer shows it:
  :mod:`clineval.benchmarks.base.reading`).

Rows of a credentialed task (MIMIC and the like, not the synthetic demo) keep no text: no
prompt, reference, output or extracted answer, unless the export's ``credentialed_text``
setting asks for it (the data use agreement forbids sharing the data; an output can copy it).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from typing import Any

from clineval import __version__
from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import Benchmark
from clineval.errors import ConfigError, DataError
from clineval.export.eee_schema import VERSION
from clineval.inference.base import UNKNOWN_FINISH
from clineval.io import Record, jsonl_line
from clineval.metrics import aggregate

#: Bump when the export writes its documents differently (2: each reading's verdict, the
#: reading ``answered`` follows, an unknown finish reason as "not known").
EXPORT_VERSION = "2"
#: Row fields holding the reference answer, in the order looked for.
REFERENCE_FIELDS = ("reference", "ground_truth", "gold")
#: The text an instance record keeps in place of a credentialed task's texts.
WITHHELD = "withheld: credentialed data (docs/export.md)"
#: An accuracy's unit by its largest value.
UNITS = {1.0: "proportion", 100.0: "percent"}
_UNSAFE = re.compile(r'[<>:"\\|?*\x00-\x1f]')


@dataclass(frozen=True)
class CellInput:
    """One mode's cell of an export: its entry in the export identity (``cells``) and what the
    workflow wrote for it."""

    #: ``mode``, ``cell``, ``scoring``, ``generation``, ``requests``, ``mode_settings``,
    #: ``bootstrap``, ``interval_table`` and, on a slice, its keys (``slice``, ``slice_seed``,
    #: ``slice_offset``, ``slice_ids``, each when set).
    entry: Record
    #: The score summary document (``results/scores/<cell>.json``).
    summary: Record
    #: The scored rows (:func:`clineval.benchmarks.base.scored_rows`).
    rows: list[Record]
    #: The cell's requests and generations, by example id.
    requests: Mapping[str, Record]
    generations: Mapping[str, Record]
    #: The generation's metadata (its ``environment``).
    meta: Record
    #: The cell's ``stats.json`` entry: ``n`` and each headline metric's value and interval.
    intervals: Record


@dataclass(frozen=True)
class RowFacts:
    """What the rows of an export's cells say, computed once: per mode, the benchmark's
    accuracy outcomes (metric -> example id -> 0/1); per cell, each row's headline values
    (:func:`row_values`)."""

    outcomes: dict[str, dict[str, dict[str, int]]]
    values: list[list[dict[str, float]]]


def row_facts(ident: Record, cells: Sequence[CellInput]) -> RowFacts:
    bench = get_benchmark(ident["task"]["benchmark"])
    outcomes, values = {}, []
    for cell in cells:
        names = list(bench.headline(cell.summary["summary"]))
        outcomes[cell.entry["mode"]] = bench.outcomes(ident["task"], cell.rows)
        values.append(row_values(ident["task"], cell.rows, names))
    return RowFacts(outcomes, values)


# -- names and places ---------------------------------------------------------------------------
def file_uuid(sha: str) -> str:
    """The export's file name: a version-4 UUID made from the identity's hash, so the same
    results keep their name and other results get another."""
    return str(uuid.UUID(bytes=bytes.fromhex(sha[:32]), version=4))


def _component(value: str, key: str) -> str:
    """One portable folder name of the datastore path (``:`` becomes ``_``); ``key``: the
    setting it comes from."""
    name = value.replace(":", "_")
    if (not name or name in (".", "..", "data") or _UNSAFE.search(name)
            or name.endswith((".", " "))):
        raise ConfigError(f"{key}={value!r}: {name!r} cannot name a folder of the Every Eval "
                          "Ever datastore (docs/export.md)")
    return name


def datastore_folder(ident: Record) -> PurePosixPath:
    """``data/<collection>/<developer>/<model>``: the task's name, then the model id's
    ``developer/name`` (the id's further parts joined by ``_``)."""
    model_id, key = ident["model"]["id"], f"models.{ident['model_name']}.id"
    developer, _, name = model_id.partition("/")
    if not name:
        raise ConfigError(f"{key}={model_id!r}: the Every Eval Ever datastore needs a model id "
                          "'developer/name' (Hugging Face's form)")
    return PurePosixPath("data", _component(ident["task_name"], f"tasks.{ident['task_name']}"),
                         _component(developer, key),
                         "_".join(_component(p, key) for p in name.split("/")))


def datastore_files(ident: Record, sha: str) -> tuple[PurePosixPath, PurePosixPath]:
    """The aggregate's and the instance records' paths in the datastore (below ``data/``)."""
    folder, name = datastore_folder(ident), file_uuid(sha)
    return folder / f"{name}.json", folder / f"{name}_samples.jsonl"


def evaluation_id(ident: Record, sha: str) -> str:
    """``<task>/<model id>/<identity>``: stable while the results are the same."""
    return f"{ident['task_name']}/{ident['model']['id']}/{sha[:16]}"


def result_id(task: str, mode: str, metric: str) -> str:
    return f"{task}/{mode}/{metric}"


# -- values -------------------------------------------------------------------------------------
def _number(value: Any) -> float | None:
    """A finite float, else None (undefined)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True,
                                                           ensure_ascii=False)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def row_values(task: Record, rows: Sequence[Record], metrics: Sequence[str]
               ) -> list[dict[str, float]]:
    """Per row, each of ``metrics`` that the row counts in (its declared part) computed on the
    row alone (an accuracy: the row's outcome; a mean: the row's value); undefined values are
    left out."""
    declared = get_benchmark(task["benchmark"]).headline_aggregates(task, list(rows))
    found = []
    for row in rows:
        shown = {m: declared[m].aggregate for m in metrics
                 if m in declared and declared[m].part(row)}
        values = aggregate.values(shown, [row]) if shown else {}
        found.append({m: v for m, v in ((m, _number(x)) for m, x in values.items())
                      if v is not None})
    return found


def _bounds(name: str, cells: Sequence[CellInput], facts: RowFacts
            ) -> tuple[float, float] | None:
    """An accuracy's range: 0 to the value a correct row gives (1 or 100, as the benchmark
    shows it), when some row of the export is correct and every wrong row gives 0; else
    unknown."""
    right, wrong = set(), set()
    for cell, values in zip(cells, facts.values, strict=True):
        outcomes = facts.outcomes[cell.entry["mode"]].get(name, {})
        for row, found in zip(cell.rows, values, strict=True):
            outcome = outcomes.get(row["id"])
            if outcome is not None and name in found:
                (right if outcome else wrong).add(found[name])
    if len(right) == 1 and wrong <= {0.0} and next(iter(right)) > 0:
        return 0.0, next(iter(right))
    return None


# -- the aggregate document ---------------------------------------------------------------------
def _model_info(ident: Record, meta: Record) -> Record:
    model = ident["model"]
    packages = (meta.get("environment") or {}).get("packages") or {}
    if model["baseline"]:
        deployment, availability = "unknown", "unknown"
    elif model["remote"]:
        deployment, availability = "externally_managed", "unknown"
    else:
        deployment, availability = "self_deployed", "open_weights"
    details = {"deployment_type": deployment, "model_availability": availability,
               "clineval_model": ident["model_name"], "backend": model["backend"],
               "revision": str(model["revision"]), "size": str(model["size"]),
               "smoke": _flag(bool(model["smoke"]))}
    if model["baseline"]:
        details["baseline"] = str(model["baseline"])
    info: Record = {"name": model["display_name"], "id": model["id"],
                    "developer": model["id"].partition("/")[0], "additional_details": details}
    if model["remote"]:
        info["inference_platform"] = model["backend"]
    elif not model["baseline"]:
        engine = {"name": model["backend"]}
        if packages.get(model["backend"]):
            engine["version"] = str(packages[model["backend"]])
        info["inference_engine"] = engine
    return info


def _source_data(ident: Record) -> Record:
    task, data = ident["task"], ident["data"]
    details = {"benchmark": ident["benchmark_title"], "task": ident["task_name"],
               "version": str(task["version"]), "data": data["source"],
               "access": str(task.get("access") or "public"), "data_identity": data["identity"]}
    details |= {f"sha256.{role}": sha for role, sha in sorted(data["sources"].items()) if sha}
    return {"dataset_name": task["display_name"], "source_type": "other",
            "additional_details": details}


def _slice_details(entry: Record) -> dict[str, str]:
    """A cell's slice keys (``slice`` and ``slice_*``) as text, ids joined by commas."""
    return {key: ", ".join(value) if isinstance(value, list) else str(value)
            for key, value in entry.items()
            if (key == "slice" or key.startswith("slice_")) and value is not None}


def _generation_config(ident: Record, entry: Record) -> Record:
    mode, sampling = entry["mode_settings"], ident.get("sampling") or {}
    args: Record = {k: sampling[k] for k in ("temperature", "top_p", "top_k") if k in sampling}
    if isinstance(sampling.get("max_tokens"), int) and sampling["max_tokens"] >= 1:
        args["max_tokens"] = sampling["max_tokens"]
    if not ident["model"]["baseline"]:
        args["reasoning"] = bool(mode["reasoning"])
    details = {"mode": entry["mode"], "mode_description": str(mode["description"]),
               "exemplars": str(mode["exemplars"]), "requests_identity": entry["requests"],
               "generation_identity": entry["generation"]}
    details |= _slice_details(entry)
    return ({"generation_args": args} if args else {}) | {"additional_details": details}


def _metric_config(ident: Record, mode: Record, name: str, lower: bool,
                   bounds: tuple[float, float] | None, accuracy: bool) -> Record:
    task = ident["task"]
    shown = dict.fromkeys((ident["benchmark_title"], task["display_name"]))
    config: Record = {
        "evaluation_description": f"{', '.join(shown)}: {name} ({mode['description']})",
        "metric_id": f"{task['benchmark']}.{name}", "metric_name": name,
        "lower_is_better": lower,
    }
    if accuracy:
        config["metric_kind"] = "accuracy"
    if bounds is None:
        config["additional_details"] = {"bounds_status": "unknown"}
    else:
        config |= {"score_type": "continuous", "min_score": bounds[0], "max_score": bounds[1],
                   **({"metric_unit": UNITS[bounds[1]]} if bounds[1] in UNITS else {})}
    return config


def _score_details(entry: Record, value: float, interval: Record, n: int) -> Record:
    boot = entry["bootstrap"]
    uncertainty: Record = {"num_samples": n, "num_bootstrap_samples": int(boot["samples"])}
    low, high = _number(interval.get("low")), _number(interval.get("high"))
    if low is not None and high is not None:
        uncertainty["confidence_interval"] = {
            "lower": low, "upper": high, "confidence_level": float(boot["level"]),
            "method": f"percentile bootstrap over examples, seed {boot['seed']} "
                      "(clineval docs/statistics.md)"}
    details = {"cell": entry["cell"], "scoring_identity": entry["scoring"],
               "interval_table": entry["interval_table"] or "(none: default settings)"}
    details |= _slice_details(entry)
    return {"score": value, "uncertainty": uncertainty, "details": details}


def aggregate_document(ident: Record, sha: str, cells: Sequence[CellInput], facts: RowFacts,
                       retrieved: str) -> tuple[Record, dict[str, list[str]]]:
    """The aggregate document (without ``detailed_evaluation_results``) and, per mode, the
    metrics it reports (a headline number that is undefined is left out and named in
    ``source_metadata``)."""
    bench = get_benchmark(ident["task"]["benchmark"])
    results, reported, undefined = [], {}, []
    for cell in cells:
        mode = cell.entry["mode"]
        reported[mode] = []
        for name, value in bench.headline(cell.summary["summary"]).items():
            number = _number(value)
            if number is None:
                undefined.append(result_id(ident["task_name"], mode, name))
                continue
            reported[mode].append(name)
            bounds = _bounds(name, cells, facts)
            results.append({
                "evaluation_result_id": result_id(ident["task_name"], mode, name),
                "evaluation_name": f"{ident['task_name']}.{mode}",
                "source_data": _source_data(ident),
                "metric_config": _metric_config(
                    ident, cell.entry["mode_settings"], name,
                    any(fnmatchcase(name, p) for p in ident["lower_is_better"]), bounds,
                    name in facts.outcomes[mode]),
                "score_details": _score_details(cell.entry, number,
                                                cell.intervals["metrics"].get(name, {}),
                                                int(cell.intervals["n"])),
                "generation_config": _generation_config(ident, cell.entry),
            })
    settings = ident["settings"]
    source: Record = {
        "source_name": "clineval", "source_type": "evaluation_run",
        "source_organization_name": settings.get("organization") or "unknown",
        "evaluator_relationship": settings["evaluator_relationship"],
        "additional_details": {
            "grid": str(ident["grid"]), "export_identity": sha,
            "credentialed": _flag(ident["credentialed"]),
            "texts": WITHHELD if withheld(ident) else "included"}}
    if settings.get("organization_url"):
        source["source_organization_url"] = settings["organization_url"]
    if undefined:
        source["additional_details"]["undefined_results"] = json.dumps(undefined)
    meta = cells[0].meta if cells else {}
    git = (meta.get("environment") or {}).get("git") or {}
    library: Record = {"name": "clineval", "version": __version__,
                       "additional_details": {"export_version": EXPORT_VERSION}}
    if git.get("commit"):
        library["additional_details"]["generation_commit"] = (
            git["commit"] + ("-dirty" if git.get("dirty") else ""))
    document = {
        "schema_version": VERSION, "evaluation_id": evaluation_id(ident, sha),
        "retrieved_timestamp": retrieved, "source_metadata": source, "eval_library": library,
        "model_info": _model_info(ident, meta), "evaluation_results": results,
    }
    return document, reported


# -- instance records ---------------------------------------------------------------------------
def withheld(ident: Record) -> bool:
    """Whether the records keep no text: a credentialed task, unless the settings ask for it."""
    return bool(ident["credentialed"]) and not ident["settings"].get("credentialed_text")


def _reference(row: Record) -> list[str]:
    for field in REFERENCE_FIELDS:
        if row.get(field) is not None:
            value = row[field]
            return [_text(v) for v in value] if isinstance(value, list) else [_text(value)]
    return []


def _attribution(row: Record, benchmark: str) -> list[Record]:
    """What the scoring read from the output: the row's ``prediction``, and each reading's
    ``extracted`` answer (a field holding one, as MedCalc's ``official`` and ``robust``)."""
    found = []
    if row.get("prediction") is not None:
        found.append((row["prediction"], f"{benchmark} scoring"))
    for field, value in sorted(row.items()):
        if isinstance(value, dict) and value.get("extracted") is not None:
            found.append((value["extracted"], f"{benchmark} {field} extraction"))
    return [{"turn_idx": 0, "source": "output.raw", "extracted_value": _text(value),
             "extraction_method": method, "is_terminal": True} for value, method in found]


def _last_user(request: Record) -> str:
    users = [m["content"] for m in request["messages"] if m["role"] == "user"]
    return users[-1] if users else ""


def instance_records(ident: Record, sha: str, cells: Sequence[CellInput], facts: RowFacts,
                     reported: Mapping[str, Sequence[str]]) -> tuple[list[Record], int]:
    """One record per scored row that has a value of a reported metric, and the number of rows
    without one (left out)."""
    bench = get_benchmark(ident["task"]["benchmark"])
    hide, task = withheld(ident), ident["task_name"]
    records, skipped = [], 0
    for cell, row_found in zip(cells, facts.values, strict=True):
        mode = cell.entry["mode"]
        outcomes = facts.outcomes[mode]
        accuracies = [m for m in outcomes if m in reported[mode]]
        order = accuracies + [m for m in reported[mode] if m not in accuracies]
        for row, found in zip(cell.rows, row_found, strict=True):
            primary = next((m for m in order if m in found), None)
            if primary is None:
                skipped += 1
                continue
            records.append(_instance(ident, sha, cell, row, found, primary,
                                     outcomes.get(primary), bench, hide, task))
    return records, skipped


def _instance(ident: Record, sha: str, cell: CellInput, row: Record, found: dict[str, float],
              primary: str, outcome: Mapping[str, int] | None, bench: Benchmark, hide: bool,
              task: str) -> Record:
    mode, rid = cell.entry["mode"], str(row["id"])
    generation = cell.generations.get(rid)
    request = cell.requests.get(rid)
    if generation is None or request is None:
        raise DataError(cell.entry["cell"], rid, "id",
                        f"no {'generation' if generation is None else 'request'} for the row")
    finish = generation.get("finish_reason")
    metadata = {"cell": cell.entry["cell"], "request_sha": str(request["request_sha"]),
                "finish_reason": "not known" if finish in UNKNOWN_FINISH else str(finish),
                "cut_to_fit": _flag(bool(request.get("truncation")))}
    metadata |= {f"score.{m}": repr(v) for m, v in sorted(found.items()) if m != primary}
    answered = bench.answered(row)
    if answered is not None:
        metadata |= {"answered": _flag(answered), "answered_reading": bench.answered_reading}
    metadata |= {f"verdict.{j.name}": j.verdict for j in bench.reading(row, {}).judgements}
    if "copied" in row:
        metadata["copied"] = json.dumps(row["copied"], sort_keys=True)
    if outcome is None:
        metadata["is_correct"] = f"undefined: {primary} is not an accuracy"
    record: Record = {
        "schema_version": VERSION, "evaluation_id": evaluation_id(ident, sha),
        "model_id": ident["model"]["id"], "evaluation_name": f"{task}.{mode}",
        "evaluation_result_id": result_id(task, mode, primary), "sample_id": rid,
        "interaction_type": "single_turn",
        "evaluation": {"score": found[primary],
                       "is_correct": bool(outcome.get(rid)) if outcome is not None else False},
    }
    if hide:
        metadata["texts"] = WITHHELD
        record |= {"input": {"raw": "", "reference": []}, "output": {"raw": []},
                   "answer_attribution": []}
    else:
        raw, reference = _last_user(request), _reference(row)
        record |= {"input": {"raw": raw, "reference": reference},
                   "output": {"raw": [generation["output"]]},
                   "answer_attribution": _attribution(row, ident["task"]["benchmark"]),
                   "sample_hash": hashlib.sha256(json.dumps(
                       {"raw": raw, "reference": reference}, sort_keys=True,
                       separators=(",", ":")).encode("utf-8")).hexdigest()}
    tokens = (generation.get("prompt_tokens"), generation.get("completion_tokens"))
    if all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
        record["token_usage"] = {"input_tokens": tokens[0], "output_tokens": tokens[1],
                                 "total_tokens": tokens[0] + tokens[1]}
    record["metadata"] = metadata
    return record


def detailed_results(ident: Record, sha: str, samples_text: str, rows: int, skipped: int
                     ) -> Record:
    """``detailed_evaluation_results``: where the instance records lie in the datastore, their
    sha256 and number."""
    found: Record = {"format": "jsonl", "file_path": str(datastore_files(ident, sha)[1]),
                     "hash_algorithm": "sha256",
                     "checksum": hashlib.sha256(samples_text.encode("utf-8")).hexdigest(),
                     "total_rows": rows}
    if skipped:
        found["additional_details"] = {"rows_without_a_reported_metric": str(skipped)}
    return found


def export(ident: Record, sha: str, cells: Sequence[CellInput], retrieved: str
           ) -> tuple[Record, list[Record]]:
    """The aggregate document and the instance records of one model x task."""
    facts = row_facts(ident, cells)
    document, reported = aggregate_document(ident, sha, cells, facts, retrieved)
    records, skipped = instance_records(ident, sha, cells, facts, reported)
    text = "".join(jsonl_line(r) for r in records)
    if records:
        document["detailed_evaluation_results"] = detailed_results(ident, sha, text,
                                                                   len(records), skipped)
    return document, records
