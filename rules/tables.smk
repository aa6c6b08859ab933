# Tables: a table spec (conf/table/) over the score summaries and per-example rows of its
# cells -> CSV, MD, LaTeX, its statistics (bootstrap intervals, paired comparisons) and its
# headline numbers. The CSV and Markdown go into `snakemake --report` with the spec's title
# and caption, one category per benchmark.


localrules:
    table,


rule table:
    input:
        identity=identity("table"),
        summaries=table_summaries,
        rows=table_rows,
    output:
        csv=update(report(
            f"{RESULTS}/tables/{{table}}.csv",
            caption="../report/caption.rst",
            category=report_category,
            labels={"table": "{table}", "format": "CSV (tidy numbers)"},
        )),
        md=update(report(
            f"{RESULTS}/tables/{{table}}.md",
            caption="../report/caption.rst",
            category=report_category,
            labels={"table": "{table}", "format": "Markdown (the paper's layout)"},
        )),
        tex=update(f"{RESULTS}/tables/{{table}}.tex"),
        stats=update(f"{RESULTS}/tables/{{table}}.stats.json"),
        stats_md=update(f"{RESULTS}/tables/{{table}}.stats.md"),
        metrics=update(f"{RESULTS}/tables/{{table}}.metrics.json"),
        record=f"{RESULTS}/tables/{{table}}.prov.json",
    params:
        title=caption_field("tables", "title"),
        caption=caption_field("tables", "caption"),
    log:
        f"{LOGS}/tables/{{table}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step table --identity {input.identity} --summaries {input.summaries}"
        " --out {output.csv} {output.md} {output.tex} {output.stats} {output.stats_md}"
        " {output.metrics} --record {output.record} > {log} 2>&1"
