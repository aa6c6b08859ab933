"""MedDisK: disease knowledge over clinical aspects, graded against a knowledge base by
expert-aligned similarity tiers into a 0-10 score (docs/meddisk.md)."""

TITLE = "MedDisK"
