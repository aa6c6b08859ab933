# Scores: extraction and metrics per example (.jsonl) and per cell (.json). No GPU.


rule score:
    input:
        identity=identity("scoring"),
        examples=f"{DATA}/derived/{{task}}/examples.jsonl",
        generations=f"{RESULTS}/generations/{{model}}/{{task}}/{{mode}}.jsonl",
    output:
        rows=f"{RESULTS}/scores/{{model}}/{{task}}/{{mode}}.jsonl",
        summary=f"{RESULTS}/scores/{{model}}/{{task}}/{{mode}}.json",
        record=f"{RESULTS}/scores/{{model}}/{{task}}/{{mode}}.prov.json",
    log:
        f"{LOGS}/scores/{{model}}/{{task}}/{{mode}}.log",
    resources:
        cpus_per_task=1,
        mem_mb=4000,
        runtime=60,
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step score --identity {input.identity} --examples {input.examples}"
        " --generations {input.generations} --rows {output.rows}"
        " --summary {output.summary} --record {output.record} > {log} 2>&1"
