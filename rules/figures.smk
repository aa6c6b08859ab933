# Figures: a figure spec (conf/figure/) over its tables' CSV and statistics -> PNG and SVG.
# A figure reads no score file, so a figure-only change re-draws that figure alone. The PNG
# goes into `snakemake --report` with the spec's title and caption, in its benchmark's category.


localrules:
    figure,


rule figure:
    input:
        identity=identity("figure"),
        tables=figure_tables,
    output:
        png=update(report(
            f"{RESULTS}/figures/{{figure}}.png",
            caption="../report/caption.rst",
            category=report_category,
            labels={"figure": "{figure}", "format": "PNG"},
        )),
        svg=update(f"{RESULTS}/figures/{{figure}}.svg"),
        record=f"{RESULTS}/figures/{{figure}}.prov.json",
    params:
        title=caption_field("figures", "title"),
        caption=caption_field("figures", "caption"),
    log:
        f"{LOGS}/figures/{{figure}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step figure --identity {input.identity} --tables {input.tables}"
        " --out {output.png} {output.svg} --record {output.record} > {log} 2>&1"
