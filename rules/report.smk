# The report: one self-contained page (results/report/index.html) with the leaderboard, every
# table and figure of the plan, their captions and identities. It opens offline: inline CSS,
# images as data: URIs. (`snakemake --report results/report.html` is Snakemake's own report.)


localrules:
    report,


rule report:
    input:
        unpack(report_inputs),
    output:
        html=update(f"{RESULTS}/report/index.html"),
        record=f"{RESULTS}/report/provenance.json",
    params:
        command=report_command,
    log:
        f"{LOGS}/report.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "{params.command} > {log} 2>&1"
