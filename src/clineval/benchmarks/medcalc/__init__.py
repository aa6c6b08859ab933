"""MedCalc-Bench (Khandekar et al., 2024): 55 medical calculators over patient notes, answers
scored by the paper's extraction and tolerance rules (docs/medcalc.md)."""

TITLE = "MedCalc-Bench"
