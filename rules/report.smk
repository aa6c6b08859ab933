# The report: one self-contained page (results/report/index.html) with the leaderboard, every
# table and figure of the plan, their captions and identities. It opens offline: inline CSS,
# images as data: URIs. (`snakemake --report results/report.html` is Snakemake's own report.)


localrules:
    report,


rule report:
    input:
        unpack(report_inputs),
    output:
        html=update(str(PLAN.report_file())),
        record=str(PLAN.record_file("report", "index")),
    log:
        f"{LOGS}/report.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step report --manifest {input.manifest} > {log} 2>&1"


# The per-example explorer: one page per cell of the report's tables, per pair of models a table
# compares, and their index (results/report/examples/, results/report/pairs/), all from one job
# over the cells' examples, requests, generations and score rows.
localrules:
    examples,


rule examples:
    input:
        unpack(example_inputs),
    output:
        pages=[str(p) for p in PLAN.example_outputs()],
        record=str(PLAN.record_file("examples", "index")),
    log:
        f"{LOGS}/report-examples.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step examples --manifest {input.manifest} > {log} 2>&1"
