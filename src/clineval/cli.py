"""``clineval``: what users run outside Snakemake, and the steps the rules call."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from clineval.benchmarks import add_include, get_benchmark, get_commands, names, title, tools
from clineval.config.locate import add_conf_argument, add_include_argument, find_conf, included
from clineval.errors import ConfigError
from clineval.io import DataError


def _step_parsers(sub: argparse._SubParsersAction) -> None:
    step = sub.add_parser("step", help="one workflow step (called by the Snakemake rules)")
    from clineval.workflow.plan.jobs import steps as declared

    steps = step.add_subparsers(dest="step", required=True)
    for declaration in declared():  # each step's name and help, as the step declares them
        steps.add_parser(declaration.name, help=declaration.help).add_argument(
            "--manifest", type=Path, required=True,
            help="the job's files, written from the plan (results/jobs/; docs/workflow.md)")


def _run_step(args: argparse.Namespace) -> None:
    """Run the step's code (its declaration's ``run``, found by name) on the job's manifest."""
    import importlib

    from clineval import progress
    from clineval.workflow.plan.jobs import step
    from clineval.workflow.plan.manifests import read_manifest
    from clineval.workflow.run import checkout

    checkout.check()  # the workflow's own code, not another checkout's environment
    progress.for_job(args.manifest, args.step)  # its lines reach the Snakemake console
    job = read_manifest(args.manifest, args.step)
    module, function = step(args.step).run.split(":")
    getattr(importlib.import_module(module), function)(job)


def _split_overrides(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """``clineval audit``'s and ``agreement``'s positional arguments as (Hydra overrides, the
    rest: table or figure names, grades files): an override sets (``key=value``), adds (``+``)
    or deletes (``~``) a key; a name does none."""
    overrides = [a for a in args if "=" in a or a.startswith(("+", "~"))]
    return overrides, [a for a in args if a not in overrides]


def _dvc(args: argparse.Namespace) -> int:
    if args.dvc == "remote":
        from clineval.workflow.commands.dvc_remote import diagnose, remotes

        try:
            status, message = diagnose(remotes(args.conf.parent))
        except RuntimeError as err:
            status, message = 1, str(err)
        print(f"clineval: {message}", file=sys.stderr if status else sys.stdout)
        return status
    from clineval.io import write_if_changed
    from clineval.workflow.commands import dvc
    from clineval.workflow.plan.build import build_plan

    plan = build_plan(args.conf, args.overrides)
    root = args.conf.parent  # dvc.yaml's paths (conf, src/clineval, results) are the project's
    out = args.out or root / "params.yaml"
    written = [out] if write_if_changed(out, dvc.params_text(plan, args.overrides)) else []
    dvc_yaml = getattr(args, "dvc_yaml", None) or root / "dvc.yaml"
    if args.dvc == "write" and write_if_changed(dvc_yaml, dvc.dvc_yaml_text(plan, args.overrides)):
        written.append(dvc_yaml)
    print(f"{'wrote ' + ', '.join(map(str, written)) if written else 'unchanged'}",
          file=sys.stderr)
    return 0


def _add_run_commands(sub: argparse._SubParsersAction) -> None:
    """``plan``, ``check-data``, ``answers`` and ``publish``: a grid and its run."""
    plan = sub.add_parser("plan", help="compose the config and list the grid's cells")
    plan.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. grid=medcalc_paper")
    add_conf_argument(plan)
    check = sub.add_parser(
        "check-data", help="validate the source files of the grid's tasks (before any job runs)")
    check.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. grid=medcalc_paper")
    add_conf_argument(check)
    answers = sub.add_parser(
        "answers", help="per cell of a finished run: prompts cut to fit, outputs at max_tokens, "
                        "answers the scorer could read (Markdown)")
    answers.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. grid=medcalc_paper")
    add_conf_argument(answers)
    answers.add_argument("--model", action="append", help="only this model (repeatable)")
    answers.add_argument("--results", type=Path, default=Path("results"),
                         help="the run's results folder (default ./results)")
    answers.add_argument("--data", type=Path, default=Path("data"),
                         help="the run's data folder (default ./data)")
    publish = sub.add_parser(
        "publish", help="a finished run's generations as files of recorded outputs, and the "
                        "recorded models that rescore them with no GPU")
    publish.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. grid=real_public")
    add_conf_argument(publish)
    publish.add_argument("--out", type=Path, required=True,
                         help="the folder that receives <model>/<mode>/<task>.jsonl")
    publish.add_argument("--model", action="append", help="only this model (repeatable)")
    publish.add_argument("--results", type=Path, default=Path("results"))
    publish.add_argument("--data", type=Path, default=Path("data"))


def _add_export(sub: argparse._SubParsersAction) -> None:
    """``export eee``: results in the Every Eval Ever schema."""
    export = sub.add_parser("export", help="results in other projects' formats")
    eee = export.add_subparsers(dest="format", required=True).add_parser(
        "eee", help="each model x task's results and instance records in the Every Eval Ever "
                    "schema v0.3.0 (docs/export.md)")
    eee.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. grid=medcalc_paper "
                                                  "export.eee.organization=MyLab")
    add_conf_argument(eee)
    eee.add_argument("--out", required=True,
                     help="folder to write data/<task>/<developer>/<model>/<uuid>.json (and "
                          "_samples.jsonl) into")
    eee.add_argument("--model", action="append", help="only this model (repeatable)")
    eee.add_argument("--credentialed-text", action="store_true",
                     help="keep prompts, references and outputs of credentialed tasks "
                          "(export.eee.credentialed_text=true: only where your data use "
                          "agreement allows sharing them)")
    eee.add_argument("--results", type=Path, default=Path("results"),
                     help="the run's results folder (default ./results)")
    eee.add_argument("--data", type=Path, default=Path("data"),
                     help="the run's data folder (default ./data)")
    eee.add_argument("--validate", action="store_true",
                     help="check every document against the Every Eval Ever 0.3.0 schemas: "
                          "--schemas, else CLINEVAL_EEE_SCHEMAS, else those of an installed "
                          "every-eval-ever (docs/export.md)")
    eee.add_argument("--schemas", type=Path, default=None,
                     help="folder of eval.schema.json and instance_level_eval.schema.json "
                          "(implies --validate)")


def _add_benchmark_commands(sub: argparse._SubParsersAction, argv_command: str | None) -> None:
    """``score <benchmark>`` and each benchmark's tools; a package is imported only when
    ``argv_command`` names its command."""
    score = sub.add_parser("score", help="score outputs produced anywhere (per benchmark)")
    scores = score.add_subparsers(dest="benchmark", required=True)
    for name in names():
        bench = scores.add_parser(name, help=f"{name} outputs (clineval score {name} --help)")
        if argv_command in (None, "score"):  # importing every benchmark costs a second
            get_benchmark(name).add_score_arguments(bench)
    for name in tools():
        parsers = sub.add_parser(name, help=f"{title(name)} tools").add_subparsers(
            dest="tool", required=True)
        if argv_command == name:  # imports the package only when it is used
            for tool, command in get_commands(name).items():
                command.add_arguments(tool_parser := parsers.add_parser(tool, help=command.help))
                add_include_argument(tool_parser)


def _add_dvc(sub: argparse._SubParsersAction) -> None:
    """``dvc write|params|remote``: DVC's view of the grid."""
    dvc = sub.add_parser("dvc", help="DVC's view of the grid: dvc.yaml and params.yaml")
    dvcs = dvc.add_subparsers(dest="dvc", required=True)
    for name, text in (("write", "write dvc.yaml and params.yaml for the grid"),
                       ("params", "write params.yaml (the plan stage of dvc.yaml runs this)")):
        p = dvcs.add_parser(name, help=text)
        p.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. grid=medcalc_paper")
        add_conf_argument(p)
        p.add_argument("--out", type=Path, default=None,
                       help="params file (default: params.yaml beside the config folder)")
        if name == "write":
            p.add_argument("--dvc-yaml", type=Path, default=None,
                           help="default: dvc.yaml beside the config folder")
    remote = dvcs.add_parser("remote", help="where `dvc pull` fetches from, and what to do "
                                            "when it holds nothing")
    add_conf_argument(remote)


def _add_new_benchmark(sub: argparse._SubParsersAction) -> None:
    """``new-benchmark``: a benchmark package written from the skeleton."""
    new = sub.add_parser(
        "new-benchmark", help="write a working benchmark package to start from, outside the "
                              "repository (docs/extending.md, Start from a skeleton)",
        description="Write DIR/NAME/: a pyproject.toml declaring the entry point, the package "
                    "clineval_NAME/ (a yes/no question task: reader, synthetic demo, answer "
                    "reading, settings, the benchmark with its metrics and leaderboard column, "
                    "conf/task/NAME.yaml, conf/table/NAME_by_mode.yaml) and a README saying "
                    "what to change first. NAME must be new, and DIR/NAME must not exist.")
    new.add_argument("name", metavar="NAME",
                     help="the benchmark's name, a lower-case identifier (my_bench); the "
                          "package is clineval_NAME")
    new.add_argument("--dir", default=".",
                     help="where to write the new folder NAME/ (default: here)")
    add_conf_argument(new)


def _add_audit(sub: argparse._SubParsersAction) -> None:
    """``audit``: tables and figures checked back to their data by hashes."""
    audit = sub.add_parser(
        "audit", help="check tables against scores, generations, requests and data by hashes "
                      "(and figures against their tables)")
    audit.add_argument("names", nargs="*", metavar="TABLE_OR_OVERRIDE",
                       help="Hydra overrides, e.g. grid=medcalc_paper (each with '=', or "
                            "starting with '+' or '~'), and the tables or figures to audit "
                            "(default: every table and figure)")
    add_conf_argument(audit)
    audit.add_argument("-C", "--directory", type=Path,
                       help="the run's working directory (Snakemake's --directory; records name "
                            "files relative to it): audit as if started there")
    audit.add_argument("--results", type=Path, default=Path("results"))
    audit.add_argument("--data", type=Path, default=Path("data"))
    audit.add_argument("--json", action="store_true", help="one JSON object on stdout")
    audit.add_argument("--report", action="store_true",
                       help="also check results/report/index.html against the tables it shows")
    audit.add_argument("--rehash", action="store_true",
                       help="read every source file again (default: trust a source's recorded "
                            "hash while its size and modification time are unchanged)")


def _add_agreement(sub: argparse._SubParsersAction) -> None:
    """``agreement``: the scorer against graders' files."""
    agreement = sub.add_parser(
        "agreement", help="the scorer's agreement with graders' files saved from the explorer, "
                          "per benchmark and cell; disagreements and stale grades "
                          "(docs/report.md, Graders in the loop)")
    agreement.add_argument("names", nargs="+", metavar="GRADES_OR_OVERRIDE",
                           help="grades files (.jsonl) and Hydra overrides, e.g. grid=demo (each "
                                "with '=', or starting with '+' or '~')")
    add_conf_argument(agreement)
    agreement.add_argument("--results", type=Path, default=Path("results"),
                           help="the run's results folder (default ./results)")
    agreement.add_argument("--data", type=Path, default=Path("data"),
                           help="the run's data folder (default ./data)")


def build_parser(argv_command: str | None = None) -> argparse.ArgumentParser:
    """The parser; the options of ``score`` and of a benchmark's tools (``clineval <benchmark>
    <tool>``) come from the benchmark packages, imported only when ``argv_command`` names that
    command."""
    parser = argparse.ArgumentParser(prog="clineval", description=__doc__)
    add_include_argument(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    _add_run_commands(sub)
    _add_export(sub)
    _add_benchmark_commands(sub, argv_command)
    _add_dvc(sub)
    _add_new_benchmark(sub)
    _add_audit(sub)
    _add_agreement(sub)
    _step_parsers(sub)
    return parser


def _plan(args: argparse.Namespace) -> int:
    from clineval.workflow.plan import code_changes
    from clineval.workflow.plan.build import build_plan
    from clineval.workflow.plan.checks import check_plan

    plan = build_plan(args.conf, args.overrides)
    check_plan(plan)
    code_changes.warn(plan)
    for cell in plan.cells:
        print(cell.path)
    print(f"{len(plan.cells)} cells, tables: {', '.join(plan.tables) or '(none)'}",
          file=sys.stderr)
    return 0


def _check_data(args: argparse.Namespace) -> int:
    from clineval.workflow.plan.check_data import run

    return run(args.conf, args.overrides)


def _new_benchmark(args: argparse.Namespace) -> int:
    from clineval.skeleton import write_skeleton

    folder = write_skeleton(args.name, args.dir, args.conf)
    print(f"wrote {folder}; what to change first: {folder / 'README.md'}")
    return 0


def _answers(args: argparse.Namespace) -> int:
    from clineval.workflow.commands import answers

    return answers.run(args.conf, args.overrides, args.model, args.results, args.data)


def _publish(args: argparse.Namespace) -> int:
    from clineval.workflow.commands import publish

    return publish.run(args.conf, args.overrides, args.out, args.model, args.results, args.data)


def _export(args: argparse.Namespace) -> int:
    from clineval.workflow.steps.export import run as export

    flag = ["export.eee.credentialed_text=true"] if args.credentialed_text else []
    return export(args.conf, [*args.overrides, *flag], args.out, args.model,
                  args.results, args.data, args.validate, args.schemas)


def _audit(args: argparse.Namespace) -> int:
    from clineval.workflow.commands.audit import audit, report

    if args.directory is not None:
        if not args.directory.is_dir():
            raise ConfigError(f"--directory {args.directory}: no such directory")
        os.chdir(args.directory)  # --conf was resolved before
    overrides, names = _split_overrides(args.names)
    result = audit(args.conf, overrides, args.results, args.data, names, args.rehash,
                   args.report)
    return report(result, args.json)


def _agreement(args: argparse.Namespace) -> int:
    from clineval.workflow.commands.agreement import run as agreement

    overrides, files = _split_overrides(args.names)
    if not files:
        raise ConfigError("clineval agreement: name at least one grades file")
    return agreement(args.conf, overrides, [Path(f) for f in files], args.results, args.data)


def _step(args: argparse.Namespace) -> int:
    _run_step(args)
    return 0


#: What each command runs (``score`` and the benchmarks' tools are dispatched by benchmark).
COMMANDS = {"plan": _plan, "check-data": _check_data, "dvc": _dvc, "new-benchmark": _new_benchmark,
            "answers": _answers, "publish": _publish, "export": _export, "audit": _audit,
            "agreement": _agreement, "step": _step}


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "score":
        return get_benchmark(args.benchmark).score_external(args)
    if args.command in tools():
        return get_commands(args.command)[args.tool].run(args)
    return COMMANDS[args.command](args)


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        # before the parser, which offers the included benchmarks' `score` and tools
        folders, rest = included(argv)
        add_include(folders)
        parser = build_parser(rest[0] if rest else "")
    except ConfigError as err:  # an include folder that is not one, a name two sources give
        print(f"clineval: error: {err}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    try:
        if "conf" in args:  # every command that composes the config finds it from anywhere
            args.conf = find_conf(args.conf)
        return _dispatch(args)
    except (ConfigError, DataError) as err:
        print(f"clineval: error: {err}", file=sys.stderr)
        return 2
    except Exception as err:
        if args.command != "step":
            raise
        # a workflow step's log gets the traceback, then the one line that the workflow's
        # onerror handler shows last on the console (clineval.workflow.run.job_errors)
        traceback.print_exc()
        print(f"clineval: error: {type(err).__name__}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
