"""The steps the Snakemake rules call (:mod:`.entry`), each reading its settings from an identity
file: derive, requests, generation, scoring, tables and their statistics, figures, exports."""
