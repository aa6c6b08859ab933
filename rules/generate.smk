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
        if PLAN.backend(model).baseline:
            inputs[f"examples_{i}"] = derived(cell.task)["examples"]
    if PLAN.model_config(model):
        inputs["model"] = str(PLAN.model_config(model))
    return inputs


for _model in sorted({c.model for c in PLAN.cells}):
    _cells = PLAN.cells_of(_model)
    _count = PLAN.shards(_model)
    # each job's generations, metadata and run summary (the cells' own, or a shard's parts)
    _parts = [PLAN.generation_outputs(_model, k) for k in range(1, _count + 1)]
    for _k, (_gen, _meta, _summary) in enumerate(_parts, start=1):

        rule:
            name:
                f"generate_{_model}" if _count == 1 else f"generate_{_model}_{_k}_of_{_count}"
            input:
                **_generation_inputs(_model, _cells),
                manifest=str(PLAN.manifest_file("generate", _model, f"{_k}-of-{_count}")),
            output:
                generations=update([str(p) for p in _gen]),
                meta=[str(p) for p in _meta],
            log:
                # the run summary is a report, not an input of anything: a log, whose time
                # stamp never makes the job look stale
                main=f"{LOGS}/generations/{_model}-{_k}-of-{_count}.log",
                summary=str(_summary),
            threads: PLAN_THREADS[_model]
            resources:
                **PLAN_RESOURCES[_model],
            conda:
                PLAN_CONDA_ENVS[_model]
            shell:
                "clineval step generate --manifest {input.manifest} > {log.main} 2>&1"

    for _i, _cell in enumerate(_cells if _count > 1 else ()):

        rule:
            name:
                f"merge_{_model}_{_cell.task}_{_cell.mode}"
            localrule: True
            input:
                requests=str(PLAN.artifact("requests", _cell)),
                shards=[str(p) for gen, meta, _ in _parts for p in (gen[_i], meta[_i])],
                manifest=str(PLAN.manifest_file("merge-shards", _cell.path)),
            output:
                generations=update(str(PLAN.artifact("generations", _cell))),
                meta=str(PLAN.artifact("generations", _cell, ".meta.json")),
            log:
                f"{LOGS}/generations/{_cell.path}.merge.log",
            conda:
                "../envs/cpu.yaml"
            shell:
                "clineval step merge-shards --manifest {input.manifest} > {log} 2>&1"
