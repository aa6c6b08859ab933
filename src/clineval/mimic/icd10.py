"""Common ICD-10-CM diagnosis codes (dotless, as MIMIC-IV stores them) with their meaning.

Each carries an ICD-9-CM code of the same meaning, so synthetic admissions from before the
October 2015 switch can be coded in ICD-9 as MIMIC-IV codes them. All ICD-10 codes are valid,
billable FY2022 ICD-10-CM codes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    code: str  #: ICD-10-CM, dotless upper case
    description: str
    icd9: str  #: ICD-9-CM of the same meaning, dotless


_TABLE = (
    ("A419", "Sepsis, unspecified organism", "0389"),
    ("D62", "Acute posthemorrhagic anemia", "2851"),
    ("D649", "Anemia, unspecified", "2859"),
    ("D696", "Thrombocytopenia, unspecified", "2875"),
    ("E039", "Hypothyroidism, unspecified", "2449"),
    ("E119", "Type 2 diabetes mellitus without complications", "25000"),
    ("E1122", "Type 2 diabetes mellitus with diabetic chronic kidney disease", "25040"),
    ("E1165", "Type 2 diabetes mellitus with hyperglycemia", "25080"),
    ("E559", "Vitamin D deficiency, unspecified", "2689"),
    ("E785", "Hyperlipidemia, unspecified", "2724"),
    ("E860", "Dehydration", "2765"),
    ("E871", "Hypo-osmolality and hyponatremia", "2761"),
    ("E876", "Hypokalemia", "2768"),
    ("F1020", "Alcohol dependence, uncomplicated", "30390"),
    ("F17210", "Nicotine dependence, cigarettes, uncomplicated", "3051"),
    ("F329", "Major depressive disorder, single episode, unspecified", "311"),
    ("G4733", "Obstructive sleep apnea (adult) (pediatric)", "32723"),
    ("G8929", "Other chronic pain", "33829"),
    ("I10", "Essential (primary) hypertension", "4019"),
    ("I214", "Non-ST elevation (NSTEMI) myocardial infarction", "41071"),
    ("I2510", "Atherosclerotic heart disease of native coronary artery without angina pectoris",
     "41401"),
    ("I2699", "Other pulmonary embolism without acute cor pulmonale", "41519"),
    ("I4891", "Unspecified atrial fibrillation", "42731"),
    ("I5023", "Acute on chronic systolic (congestive) heart failure", "42823"),
    ("I639", "Cerebral infarction, unspecified", "43491"),
    ("I872", "Venous insufficiency (chronic) (peripheral)", "4599"),
    ("I959", "Hypotension, unspecified", "4589"),
    ("J189", "Pneumonia, unspecified organism", "486"),
    ("J441", "Chronic obstructive pulmonary disease with (acute) exacerbation", "49121"),
    ("J45909", "Unspecified asthma, uncomplicated", "49390"),
    ("J9601", "Acute respiratory failure with hypoxia", "51881"),
    ("K219", "Gastro-esophageal reflux disease without esophagitis", "53081"),
    ("K5732", "Diverticulitis of large intestine without perforation or abscess without "
     "bleeding", "56211"),
    ("K7030", "Alcoholic cirrhosis of liver without ascites", "5712"),
    ("K8000", "Calculus of gallbladder with acute cholecystitis without obstruction", "57400"),
    ("K8590", "Acute pancreatitis without necrosis or infection, unspecified", "5770"),
    ("K922", "Gastrointestinal hemorrhage, unspecified", "5789"),
    ("L03115", "Cellulitis of right lower limb", "6826"),
    ("M1990", "Unspecified osteoarthritis, unspecified site", "71590"),
    ("N179", "Acute kidney failure, unspecified", "5849"),
    ("N189", "Chronic kidney disease, unspecified", "5859"),
    ("N390", "Urinary tract infection, site not specified", "5990"),
    ("N401", "Benign prostatic hyperplasia with lower urinary tract symptoms", "60001"),
    ("R0781", "Pleurodynia", "78652"),
    ("R4182", "Altered mental status, unspecified", "78097"),
    ("R55", "Syncope and collapse", "7802"),
    ("S72001A", "Fracture of unspecified part of neck of right femur, initial encounter for "
     "closed fracture", "82000"),
    ("T502X5A", "Adverse effect of carbonic-anhydrase inhibitors, benzothiadiazides and other "
     "diuretics, initial encounter", "E9443"),
    ("W19XXXA", "Unspecified fall, initial encounter", "E8889"),
    ("Z7901", "Long term (current) use of anticoagulants", "V5861"),
    ("Z794", "Long term (current) use of insulin", "V5867"),
    ("Z87891", "Personal history of nicotine dependence", "V1582"),
    ("Z955", "Presence of coronary angioplasty implant and graft", "V4582"),
)

CODES: dict[str, Code] = {code: Code(code, description, icd9) for code, description, icd9 in _TABLE}
