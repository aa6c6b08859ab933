# clineval: models x tasks x modes -> one artifact chain per cell -> tables, figures, report.
# Usage: snakemake all_tables            (the grid of conf/config.yaml; `demo` by default: its
#                                         tables, their figures and the HTML report)
#        snakemake all_tables --config overrides="grid=medcalc_paper tasks.medcalc.data.path=..."
#        snakemake results/tables/medcalc_table2.md     (one table and only what it needs)
#        snakemake all_exports                  (results in the Every Eval Ever schema)


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/prompts.smk"
include: "rules/generate.smk"
include: "rules/score.smk"
include: "rules/tables.smk"
include: "rules/figures.smk"
include: "rules/report.smk"
include: "rules/export.smk"


report: "report/workflow.rst"


rule all_tables:
    input:
        all_table_outputs(),
        all_figure_outputs(),
        report_outputs(),
        example_outputs(),
        MISSING,  # finished files that went missing (rules/common.smk): rebuilt
    default_target: True


rule all_figures:
    input:
        all_figure_outputs(),


rule all_exports:
    input:
        all_export_outputs(),


rule all_data:
    input:
        all_outputs("data"),


rule all_generations:
    input:
        all_outputs("generations"),


rule all_scores:
    input:
        all_outputs("scores"),
