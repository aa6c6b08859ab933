# Benchmark sources (the official files, or the project's synthetic demo) -> derived examples.


localrules:
    derive_data,
    build_model,


# One rule per demo task: its outputs are the files the benchmark names (one or several).
for _task in sorted({c.task for c in PLAN.cells}):
    if PLAN.cfg["tasks"][_task]["data"]["source"] != "demo":
        continue

    rule:
        name:
            f"demo_sources_{_task}"
        localrule: True
        input:
            identity=str(PLAN.identity_file("data", _task)),
        output:
            [str(p) for p in PLAN.sources(_task).values()],
        log:
            f"{LOGS}/data/{_task}.demo.log",
        conda:
            "../envs/cpu.yaml"
        shell:
            "clineval step demo --identity {input.identity} > {log} 2>&1"


rule derive_data:
    input:
        unpack(source_files),
        identity=identity("data"),
    output:
        examples=f"{DATA}/derived/{{task}}/examples.jsonl",
        exemplars=f"{DATA}/derived/{{task}}/exemplars.jsonl",
        record=f"{DATA}/derived/{{task}}/provenance.json",
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
