# Scores: extraction and metrics per example (.jsonl) and per cell (.json). No GPU unless a
# benchmark's scoring asks for one (`tasks.<task>.resources`). One job per (model, benchmark)
# scores all of its cells, loading encoders and ontologies once; the files a benchmark's
# scoring reads (Benchmark.scoring_inputs) are inputs of the job and of its identities.


for _bench in PLAN.benchmarks:

    rule:
        name:
            f"score_{_bench}"
        input:
            unpack(of_benchmark(score_inputs, _bench)),
        output:
            rows=update(cell_files(_bench, "scores", ".jsonl")),
            summaries=update(cell_files(_bench, "scores", ".json")),
            records=cell_files(_bench, "scores", ".prov.json"),
        log:
            f"{LOGS}/scores/{{model}}/{_bench}.log",
        resources:
            **SCORING_RESOURCES[_bench],
        conda:
            "../envs/cpu.yaml"
        shell:
            "clineval step score --manifest {input.manifest} > {log} 2>&1"
