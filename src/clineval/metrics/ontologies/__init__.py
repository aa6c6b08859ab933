"""Code systems scored level by level: ICD-10-CM, ICD-10-PCS, LOINC and ATC.

Each module gives a code's canonical form, its codes at each level of the hierarchy (the level
functions :mod:`clineval.metrics.hierarchical` pools) and, where the hierarchy comes from a
package or a user's file, the version to record.
"""
