# Benchmark sources (the official files, or the project's synthetic demo) -> derived examples.


localrules:
    derive_data,
    build_model,


# A demo task's job writes its synthetic sources (the files the benchmark names, in the official
# format) and derives its examples from them, in one process; an official task's job derives
# from the user's files.
for _task in DEMO_TASKS:

    rule:
        name:
            f"derive_demo_{_task}"
        localrule: True
        input:
            identity=str(PLAN.identity_file("data", _task)),
            manifest=str(PLAN.manifest_file("derive", _task)),
        output:
            sources=update([str(p) for p in PLAN.sources(_task).values()]),
            examples=update(derived(_task)["examples"]),
            exemplars=update(derived(_task)["exemplars"]),
            record=str(PLAN.record_file("data", _task)),
        log:
            f"{LOGS}/data/{_task}.derive.log",
        conda:
            "../envs/cpu.yaml"
        shell:
            "clineval step derive --manifest {input.manifest} > {log} 2>&1"


rule derive_data:
    input:
        unpack(source_files),
        identity=identity("data"),
        manifest=manifest("derive", "task"),
    output:
        examples=update(derived("{task}")["examples"]),
        exemplars=update(derived("{task}")["exemplars"]),
        record=str(PLAN.record_file("data", "{task}")),
    wildcard_constraints:
        task=OFFICIAL_TASKS_PATTERN,
    log:
        f"{LOGS}/data/{{task}}.derive.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step derive --manifest {input.manifest} > {log} 2>&1"


rule build_model:
    input:
        identity=identity("model"),
        manifest=manifest("build-model", "model"),
    output:
        config=str(PLAN.build_dir("{model}") / "config.json"),
        record=str(PLAN.record_file("model", "{model}")),
    log:
        f"{LOGS}/models/{{model}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step build-model --manifest {input.manifest} > {log} 2>&1"


# Files a benchmark derives from its scoring inputs (CliBench: the embeddings of its candidate
# code titles), all of a benchmark's in one job, once, before any of its scoring jobs reads them.
for _bench in [b for b in PLAN.benchmarks if PLAN.derived_input_files(b)]:

    rule:
        name:
            f"derive_scoring_inputs_{_bench}"
        input:
            **derived_input_sources(_bench),
        output:
            files=update([str(p) for _, _, p in PLAN.derived_input_files(_bench)]),
            records=[str(PLAN.record_file("scoring_input", f"{t}/{r}"))
                     for t, r, _ in PLAN.derived_input_files(_bench)],
        log:
            f"{LOGS}/data/{_bench}.scoring-inputs.log",
        resources:
            **SCORING_RESOURCES[_bench],
        conda:
            "../envs/cpu.yaml"
        shell:
            "clineval step scoring-inputs --manifest {input.manifest} > {log} 2>&1"
