# Generations: the only expensive step. One job per model (or per data-parallel shard of a
# model) loads its engine once for all of the model's cells; every cell keeps its own artifact.
# Finished requests are cached, so a killed job resumes; see docs/workflow.md.


def _generation_inputs(model, cells):
    """Identities, requests and (baselines) examples of the cells; a built model's config."""
    inputs = {}
    for i, cell in enumerate(cells):
        inputs[f"identity_{i}"] = str(PLAN.identity_file(cell.model, cell.task, cell.mode, "generation"))
        inputs[f"requests_{i}"] = str(PLAN.artifact("requests", cell))
        inputs[f"requests_record_{i}"] = str(PLAN.record_file("requests", cell.path))
        if PLAN.cfg["models"][model]["backend"] == "baseline":
            inputs[f"examples_{i}"] = derived(cell.task)["examples"]
    if PLAN.model_config(model):
        inputs["model"] = str(PLAN.model_config(model))
    return inputs


def _generate_command(model, cells, outputs, k, count):
    """``clineval step generate`` over the cells' files (paths known when the plan is made)."""
    baseline = PLAN.cfg["models"][model]["backend"] == "baseline"
    parts = ["clineval step generate", f"--shard {k}/{count}", f"--summary {outputs['summary']}"]
    model_dir = PLAN.model_dir(model)
    if model_dir is not None:
        parts.append(f"--model-dir {model_dir}")
    for i, cell in enumerate(cells):
        cache = f"{CACHE}/{cell.path}"  # shared by every grid (rules/common.smk)
        cache += ".jsonl" if count == 1 else f".shard-{k}-of-{count}.jsonl"
        examples = derived(cell.task)["examples"] if baseline else "-"
        parts.append(
            f"--cell {PLAN.identity_file(cell.model, cell.task, cell.mode, 'generation')} "
            f"{PLAN.artifact('requests', cell)} {outputs['generations'][i]} "
            f"{outputs['meta'][i]} {cache} {examples}"
        )
    return " ".join(parts)


for _model in sorted({c.model for c in PLAN.cells}):
    _cells = PLAN.cells_of(_model)
    _count = PLAN.shards(_model)
    _gen = [str(PLAN.artifact("generations", c)) for c in _cells]
    _meta = [str(PLAN.artifact("generations", c, ".meta.json")) for c in _cells]
    for _k in range(1, _count + 1):
        if _count == 1:
            _out = {"generations": _gen, "meta": _meta,
                    "summary": f"{RESULTS}/generations/{_model}/run-summary.json"}
        else:
            _dir = f"{RESULTS}/generations/{_model}/_shards/{_k}-of-{_count}"
            _out = {
                "generations": [f"{_dir}/{c.task}/{c.mode}.jsonl" for c in _cells],
                "meta": [f"{_dir}/{c.task}/{c.mode}.meta.json" for c in _cells],
                "summary": f"{_dir}/run-summary.json",
            }

        rule:
            name:
                f"generate_{_model}" if _count == 1 else f"generate_{_model}_{_k}_of_{_count}"
            input:
                **_generation_inputs(_model, _cells),
            output:
                generations=update(_out["generations"]),
                meta=_out["meta"],
            log:
                # the run summary is a report, not an input of anything: a log, whose time
                # stamp never makes the job look stale
                main=f"{LOGS}/generations/{_model}-{_k}-of-{_count}.log",
                summary=_out["summary"],
            params:
                # evaluated now: shell bodies run later, after the loop variables moved on
                command=_generate_command(_model, _cells, _out, _k, _count),
            threads: PLAN_THREADS[_model]
            resources:
                **PLAN_RESOURCES[_model],
            conda:
                PLAN_CONDA_ENVS[_model]
            shell:
                "{params.command} > {log.main} 2>&1"

    if _count > 1:
        _dirs = [f"{RESULTS}/generations/{_model}/_shards/{k}-of-{_count}" for k in
                 range(1, _count + 1)]
        for _cell, _g, _m in zip(_cells, _gen, _meta):

            rule:
                name:
                    f"merge_{_model}_{_cell.task}_{_cell.mode}"
                localrule: True
                input:
                    requests=str(PLAN.artifact("requests", _cell)),
                    shards=[f"{d}/{_cell.task}/{_cell.mode}{s}" for d in _dirs
                            for s in (".jsonl", ".meta.json")],
                output:
                    generations=update(_g),
                    meta=_m,
                params:
                    shards=" ".join(
                        f"--shard {d}/{_cell.task}/{_cell.mode}.jsonl "
                        f"{d}/{_cell.task}/{_cell.mode}.meta.json"
                        for d in _dirs
                    ),
                log:
                    f"{LOGS}/generations/{_cell.path}.merge.log",
                conda:
                    "../envs/cpu.yaml"
                shell:
                    "clineval step merge-shards --requests {input.requests}"
                    " --out {output.generations} --meta {output.meta} {params.shards}"
                    " > {log} 2>&1"
