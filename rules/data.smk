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
            "clineval step derive --demo --identity {input.identity} --examples {output.examples}"
            " --exemplars {output.exemplars} --record {output.record} > {log} 2>&1"


rule derive_data:
    input:
        unpack(source_files),
        identity=identity("data"),
    output:
        examples=update(f"{DATA}/derived/{{task}}/examples.jsonl"),
        exemplars=update(f"{DATA}/derived/{{task}}/exemplars.jsonl"),
        record=f"{DATA}/derived/{{task}}/provenance.json",
    wildcard_constraints:
        task=OFFICIAL_TASKS_PATTERN,
    log:
        f"{LOGS}/data/{{task}}.derive.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step derive --identity {input.identity} --examples {output.examples}"
        " --exemplars {output.exemplars} --record {output.record} > {log} 2>&1"


rule build_model:
    input:
        identity=identity("model"),
    output:
        config=f"{RESULTS}/models/{{model}}/config.json",
        record=f"{RESULTS}/models/{{model}}/provenance.json",
    log:
        f"{LOGS}/models/{{model}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step build-model --identity {input.identity}"
        " --out $(dirname {output.config}) --record {output.record} > {log} 2>&1"


# Files a benchmark derives from its scoring inputs (CliBench: the embeddings of its candidate
# code titles), all of a benchmark's in one job, once, before any of its scoring jobs reads them.
for _bench in [b for b in PLAN.benchmarks if derived_input_files(b)]:

    rule:
        name:
            f"derive_scoring_inputs_{_bench}"
        input:
            **derived_input_sources(_bench),
        output:
            files=update([str(p) for _, _, p in derived_input_files(_bench)]),
            records=[str(PLAN.record_file("scoring_input", f"{t}/{r}"))
                     for t, r, _ in derived_input_files(_bench)],
        params:
            command=derived_input_command(_bench),
        log:
            f"{LOGS}/data/{_bench}.scoring-inputs.log",
        resources:
            **SCORING_RESOURCES[_bench],
        conda:
            "../envs/cpu.yaml"
        shell:
            "{params.command} > {log} 2>&1"
