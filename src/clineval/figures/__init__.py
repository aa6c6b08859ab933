"""Figures drawn from the tables' statistics and CSVs (matplotlib, deterministic bytes)."""
