# clineval: models x tasks x modes -> one artifact chain per cell -> tables, figures, report.
# Usage: snakemake all_tables            (the grid of conf/config.yaml; `demo` by default: its
#                                         tables, their figures and the HTML report)
#        snakemake all_tables --config overrides="grid=medcalc_paper tasks.medcalc.data.path=..."
#        snakemake results/tables/medcalc_table2.md     (one table and only what it needs)
#        snakemake all_exports                  (results in the Every Eval Ever schema)


include: "rules/common.smk"
include: "rules/steps.smk"


report: "report/workflow.rst"


rule all_tables:
    input:
        outputs_of("table", "figure", "report", "examples"),
        MISSING,  # finished files that went missing (rules/common.smk): rebuilt
    default_target: True


rule all_figures:
    input:
        outputs_of("figure"),


rule all_exports:
    input:
        outputs_of("export-eee"),


rule all_data:
    input:
        outputs_of("derive", "scoring-inputs"),


rule all_generations:
    input:
        outputs_of("generate", "merge-shards"),


rule all_scores:
    input:
        outputs_of("score"),
