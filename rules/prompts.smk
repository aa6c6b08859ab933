# Requests: each example rendered as chat messages for a model and mode (cheap, CPU). One job
# per (model, benchmark) renders all of its cells (the tokenizer loads once); every cell keeps
# its own requests file and provenance record.


for _bench in PLAN.benchmarks:

    rule:
        name:
            f"requests_{_bench}"
        localrule: True
        input:
            unpack(of_benchmark(requests_inputs, _bench)),
        output:
            requests=update(cell_files(_bench, "requests", ".jsonl")),
            records=cell_files(_bench, "requests", ".prov.json"),
        log:
            f"{LOGS}/requests/{{model}}/{_bench}.log",
        conda:
            "../envs/cpu.yaml"
        shell:
            "clineval step requests --manifest {input.manifest} > {log} 2>&1"
