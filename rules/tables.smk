# Tables: a table spec (conf/table/) over the score summaries and per-example rows of its
# cells -> CSV, MD, LaTeX, its statistics (bootstrap intervals, paired comparisons) and its
# headline numbers. The CSV and Markdown go into `snakemake --report` with the spec's title
# and caption, one category per benchmark.


localrules:
    table,


# the plan's paths with the wildcard as the table's name
_TABLE = dict(zip(TABLE_FILES, map(str, PLAN.table_outputs("{table}"))))


rule table:
    input:
        identity=identity("table"),
        manifest=manifest("table", "table"),
        summaries=table_summaries,
        rows=table_rows,
    output:
        csv=update(report(
            _TABLE["csv"],
            caption="../report/caption.rst",
            category=report_category,
            labels={"table": "{table}", "format": "CSV (tidy numbers)"},
        )),
        md=update(report(
            _TABLE["md"],
            caption="../report/caption.rst",
            category=report_category,
            labels={"table": "{table}", "format": "Markdown (the paper's layout)"},
        )),
        tex=update(_TABLE["tex"]),
        stats=update(_TABLE["stats"]),
        stats_md=update(_TABLE["stats_md"]),
        cells=update(_TABLE["cells"]),
        metrics=update(str(PLAN.metrics_file("{table}"))),
        record=str(PLAN.record_file("table", "{table}")),
    params:
        title=caption_field("tables", "title"),
        caption=caption_field("tables", "caption"),
    log:
        f"{LOGS}/tables/{{table}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step table --manifest {input.manifest} > {log} 2>&1"
