"""CliBench (Ma et al.): discharge diagnoses, procedures, lab orders and prescriptions of a
MIMIC-IV admission, scored at every level of ICD-10-CM, ICD-10-PCS, LOINC and ATC."""

TITLE = "CliBench"
