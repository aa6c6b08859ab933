# Exports: each model x task's results and instance records in the Every Eval Ever schema
# (docs/export.md), from the score summaries and rows, requests and generations of its cells.
# Not part of all_tables: `snakemake all_exports` builds them, and an export is built again only
# when one of its cells (or the export settings) changes.


localrules:
    export_eee,


# the plan's paths with the wildcards as the model and the task
_EXPORT = dict(zip(EXPORT_FILES, map(str, PLAN.export_outputs("{model}", "{task}"))))


rule export_eee:
    input:
        unpack(export_inputs),
    output:
        json=_EXPORT["json"],
        jsonl=_EXPORT["jsonl"],
        record=str(PLAN.record_file("export", "{model}/{task}")),
    log:
        f"{LOGS}/export/eee/{{model}}/{{task}}.log",
    conda:
        "../envs/cpu.yaml"
    shell:
        "clineval step export-eee --manifest {input.manifest} > {log} 2>&1"
