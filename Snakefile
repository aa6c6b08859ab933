# clineval: models x tasks x modes -> one artifact chain per cell -> tables.
# Usage: snakemake                       (tables and report of conf/config.yaml's grid; `demo`)
#        snakemake all_tables            (the tables only)
#        snakemake --report results/report.html   (Snakemake's report of a finished run)
#        snakemake all_tables --config overrides="grid=medcalc_paper tasks.medcalc.data.path=..."
#        snakemake results/tables/medcalc_table2.md     (one table and only what it needs)


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/prompts.smk"
include: "rules/generate.smk"
include: "rules/score.smk"
include: "rules/tables.smk"
include: "rules/report.smk"


report: "report/workflow.rst"


rule all:
    input:
        all_table_outputs(),
        report_outputs(),
    default_target: True


rule all_tables:
    input:
        all_table_outputs(),


rule all_data:
    input:
        all_outputs("data"),


rule all_generations:
    input:
        all_outputs("generations"),


rule all_scores:
    input:
        all_outputs("scores"),
