"""The Snakemake run around the steps: pulled artifacts settled, stale locks released, missing
files rebuilt, the console's progress and error lines, the SLURM checks, and the guard that jobs
run this checkout's code."""
