# Tables: a table spec (conf/table/) over the score summaries of its cells (and their
# per-example rows when the spec sets `rows: true`) -> CSV, MD, LaTeX.


localrules:
    table,


rule table:
    input:
        identity=identity("table"),
        summaries=table_summaries,
        rows=table_rows,
    output:
        csv=f"{RESULTS}/tables/{{table}}.csv",
        md=f"{RESULTS}/tables/{{table}}.md",
        tex=f"{RESULTS}/tables/{{table}}.tex",
        metrics=f"{RESULTS}/tables/{{table}}.metrics.json",
        record=f"{RESULTS}/tables/{{table}}.prov.json",
    log:
        f"{LOGS}/tables/{{table}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step table --identity {input.identity} --summaries {input.summaries}"
        " --out {output.csv} {output.md} {output.tex} {output.metrics}"
        " --record {output.record} > {log} 2>&1"
