# Figures: a figure spec (conf/figure/) over its tables' CSV and statistics -> PNG and SVG.
# A figure reads no score file, so a figure-only change re-draws that figure alone.


localrules:
    figure,


rule figure:
    input:
        identity=identity("figure"),
        tables=figure_tables,
    output:
        png=f"{RESULTS}/figures/{{figure}}.png",
        svg=f"{RESULTS}/figures/{{figure}}.svg",
        record=f"{RESULTS}/figures/{{figure}}.prov.json",
    log:
        f"{LOGS}/figures/{{figure}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step figure --identity {input.identity} --tables {input.tables}"
        " --out {output.png} {output.svg} --record {output.record} > {log} 2>&1"
