# Figures: a figure spec (conf/figure/) over its tables' CSV and statistics -> PNG and SVG.
# A figure reads no score file, so a figure-only change re-draws that figure alone. The PNG
# goes into `snakemake --report` with the spec's title and caption, in its benchmark's category.


localrules:
    figure,


# the plan's paths with the wildcard as the figure's name
_FIGURE = dict(zip(FIGURE_FILES, map(str, PLAN.figure_outputs("{figure}"))))


rule figure:
    input:
        identity=identity("figure"),
        manifest=manifest("figure", "figure"),
        tables=figure_tables,
    output:
        png=update(report(
            _FIGURE["png"],
            caption="../report/caption.rst",
            category=report_category,
            labels={"figure": "{figure}", "format": "PNG"},
        )),
        svg=update(_FIGURE["svg"]),
        record=str(PLAN.record_file("figure", "{figure}")),
    params:
        title=caption_field("figures", "title"),
        caption=caption_field("figures", "caption"),
    log:
        f"{LOGS}/figures/{{figure}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step figure --manifest {input.manifest} > {log} 2>&1"
