# Requests: each example rendered as chat messages for a model and mode (cheap, CPU).


localrules:
    requests,


rule requests:
    input:
        unpack(tokenizer_input),
        identity=identity("requests"),
        examples=f"{DATA}/derived/{{task}}/examples.jsonl",
        exemplars=f"{DATA}/derived/{{task}}/exemplars.jsonl",
    output:
        requests=f"{RESULTS}/requests/{{model}}/{{task}}/{{mode}}.jsonl",
        record=f"{RESULTS}/requests/{{model}}/{{task}}/{{mode}}.prov.json",
    params:
        model_dir=model_dir_flag,
    log:
        f"{LOGS}/requests/{{model}}/{{task}}/{{mode}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step requests --identity {input.identity} --examples {input.examples}"
        " --exemplars {input.exemplars} --out {output.requests} --record {output.record}"
        " {params.model_dir} > {log} 2>&1"
