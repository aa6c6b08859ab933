"""Dictionaries of the synthetic MIMIC-IV: procedures, lab items, drugs, and small files in the
formats of the licensed code systems (LOINC hierarchy, NDC -> ATC), written for the project.

ICD-10-PCS codes and titles, LOINC numbers of the lab items (as mimic-code maps them) and ATC
codes are real; NDCs and the LOINC hierarchy's LP parts are synthetic (``LPD...``).
"""

from __future__ import annotations

from dataclasses import dataclass

#: ICD-10-PCS (code, title).
PCS = (
    ("0DJ08ZZ", "Inspection of Upper Intestinal Tract, Via Natural or Artificial Opening "
     "Endoscopic"),
    ("02HV33Z", "Insertion of Infusion Device into Superior Vena Cava, Percutaneous Approach"),
    ("5A1935Z", "Respiratory Ventilation, Less than 24 Consecutive Hours"),
    ("0BH17EZ", "Insertion of Endotracheal Airway into Trachea, Via Natural or Artificial "
     "Opening"),
    ("3E0G76Z", "Introduction of Nutritional Substance into Upper GI, Via Natural or Artificial "
     "Opening"),
    ("0SRR0J9", "Replacement of Right Hip Joint, Femoral Surface with Synthetic Substitute, "
     "Cemented, Open Approach"),
    ("B2111ZZ", "Fluoroscopy of Multiple Coronary Arteries using Low Osmolar Contrast"),
    ("4A023N7", "Measurement of Cardiac Sampling and Pressure, Left Heart, Percutaneous "
     "Approach"),
    ("30233N1", "Transfusion of Nonautologous Red Blood Cells into Peripheral Vein, "
     "Percutaneous Approach"),
    ("0W9G3ZZ", "Drainage of Peritoneal Cavity, Percutaneous Approach"),
)
#: ICD-9-CM procedures (code, title), for admissions coded before October 2015.
PCS_ICD9 = (
    ("9671", "Continuous invasive mechanical ventilation for less than 96 consecutive hours"),
    ("3893", "Venous catheterization, not elsewhere classified"),
    ("4513", "Other endoscopy of small intestine"),
)


@dataclass(frozen=True)
class LabSpec:
    itemid: int
    label: str
    fluid: str
    category: str
    loinc: str
    unit: str
    low: float | None  #: reference range; None for a text-only result
    high: float | None
    group: str  #: the synthetic hierarchy's third level


LABS = (
    LabSpec(50912, "Creatinine", "Blood", "Chemistry", "2160-0", "mg/dL", 0.5, 1.2, "renal"),
    LabSpec(51006, "Urea Nitrogen", "Blood", "Chemistry", "3094-0", "mg/dL", 6, 20, "renal"),
    LabSpec(50971, "Potassium", "Blood", "Chemistry", "2823-3", "mEq/L", 3.3, 5.1,
            "electrolytes"),
    LabSpec(50983, "Sodium", "Blood", "Chemistry", "2951-2", "mEq/L", 133, 145, "electrolytes"),
    LabSpec(50902, "Chloride", "Blood", "Chemistry", "2075-0", "mEq/L", 96, 108, "electrolytes"),
    LabSpec(50882, "Bicarbonate", "Blood", "Chemistry", "1963-8", "mEq/L", 22, 32,
            "electrolytes"),
    LabSpec(50868, "Anion Gap", "Blood", "Chemistry", "1863-0", "mEq/L", 8, 20, "electrolytes"),
    LabSpec(50931, "Glucose", "Blood", "Chemistry", "2345-7", "mg/dL", 70, 100, "metabolic"),
    LabSpec(50813, "Lactate", "Blood", "Blood Gas", "32693-4", "mmol/L", 0.5, 2.0, "metabolic"),
    LabSpec(51222, "Hemoglobin", "Blood", "Hematology", "718-7", "g/dL", 13.7, 17.5,
            "blood count"),
    LabSpec(51221, "Hematocrit", "Blood", "Hematology", "4544-3", "%", 40, 51, "blood count"),
    LabSpec(51301, "White Blood Cells", "Blood", "Hematology", "6690-2", "K/uL", 4, 11,
            "blood count"),
    LabSpec(51265, "Platelet Count", "Blood", "Hematology", "777-3", "K/uL", 150, 400,
            "blood count"),
    LabSpec(51237, "INR(PT)", "Blood", "Hematology", "6301-6", "", 0.9, 1.1, "coagulation"),
    LabSpec(51491, "pH", "Urine", "Hematology", "5803-2", "units", 5, 8, "urinalysis"),
    LabSpec(51463, "Bacteria", "Urine", "Hematology", "5769-5", "", None, None, "urinalysis"),
)
#: The synthetic LOINC hierarchy: root -> class -> group -> term.
LOINC_ROOT = ("LPD0001", "{component}")
LOINC_CLASS = ("LPD0002", "Laboratory")
LOINC_GROUPS = {
    "renal": ("LPD0010", "Renal function"),
    "electrolytes": ("LPD0011", "Electrolytes"),
    "metabolic": ("LPD0012", "Metabolic"),
    "blood count": ("LPD0013", "Blood count"),
    "coagulation": ("LPD0014", "Coagulation"),
    "urinalysis": ("LPD0015", "Urinalysis"),
}


@dataclass(frozen=True)
class Drug:
    name: str
    ndc: str  #: synthetic, 11 digits
    atc: str  #: ATC level 5
    line: str  #: prod_strength


DRUGS = (
    Drug("Metformin", "00093104801", "A10BA02", "500mg Tablet"),
    Drug("Insulin Glargine", "00088221905", "A10AE04", "100 Units / mL - 10 mL Vial"),
    Drug("Heparin", "63323026201", "B01AB01", "5000 Units / mL- 1mL Vial"),
    Drug("Aspirin", "63739052210", "B01AC06", "81mg Tablet"),
    Drug("Atorvastatin", "00071015623", "C10AA05", "40mg Tablet"),
    Drug("Metoprolol Tartrate", "51079025520", "C07AB02", "25mg Tablet"),
    Drug("Lisinopril", "68180051301", "C09AA03", "10mg Tablet"),
    Drug("Furosemide", "00054429731", "C03CA01", "20mg Tablet"),
    Drug("Pantoprazole", "00008084199", "A02BC02", "40mg Tablet"),
    Drug("CeftriaXONE", "00409733201", "J01DD04", "1g Vial"),
    Drug("Vancomycin", "00338355248", "J01XA01", "1g / 200 mL Frozen Bag"),
    Drug("Acetaminophen", "00904198861", "N02BE01", "325mg Tablet"),
    Drug("Ondansetron", "00781303105", "A04AA01", "2mg / mL - 2 mL Vial"),
    Drug("Potassium Chloride", "58177000111", "A12BA01", "20mEq Tablet"),
    Drug("Senna", "00536355401", "A06AB06", "8.6mg Tablet"),
)
#: ATC names of the groups above (levels 1-4) and of the substances.
ATC_NAMES = {
    "A": "Alimentary tract and metabolism", "A02": "Drugs for acid related disorders",
    "A02B": "Drugs for peptic ulcer and gastro-oesophageal reflux disease",
    "A02BC": "Proton pump inhibitors", "A04": "Antiemetics and antinauseants",
    "A04A": "Antiemetics and antinauseants", "A04AA": "Serotonin (5HT3) antagonists",
    "A06": "Drugs for constipation", "A06A": "Drugs for constipation",
    "A06AB": "Contact laxatives", "A10": "Drugs used in diabetes", "A10A": "Insulins and analogues",
    "A10AE": "Insulins and analogues for injection, long-acting",
    "A10B": "Blood glucose lowering drugs, excl. insulins", "A10BA": "Biguanides",
    "A12": "Mineral supplements", "A12B": "Potassium", "A12BA": "Potassium",
    "B": "Blood and blood forming organs", "B01": "Antithrombotic agents",
    "B01A": "Antithrombotic agents", "B01AB": "Heparin group",
    "B01AC": "Platelet aggregation inhibitors excl. heparin",
    "C": "Cardiovascular system", "C03": "Diuretics", "C03C": "High-ceiling diuretics",
    "C03CA": "Sulfonamides, plain", "C07": "Beta blocking agents",
    "C07A": "Beta blocking agents", "C07AB": "Beta blocking agents, selective",
    "C09": "Agents acting on the renin-angiotensin system", "C09A": "ACE inhibitors, plain",
    "C09AA": "ACE inhibitors, plain", "C10": "Lipid modifying agents",
    "C10A": "Lipid modifying agents, plain", "C10AA": "HMG CoA reductase inhibitors",
    "J": "Antiinfectives for systemic use", "J01": "Antibacterials for systemic use",
    "J01D": "Other beta-lactam antibacterials", "J01DD": "Third-generation cephalosporins",
    "J01X": "Other antibacterials", "J01XA": "Glycopeptide antibacterials",
    "N": "Nervous system", "N02": "Analgesics", "N02B": "Other analgesics and antipyretics",
    "N02BE": "Anilides",
    **{d.atc: d.name.lower() for d in DRUGS},
}
SERVICES = {"MEDICINE": "MED", "CARDIOLOGY": "CMED", "NEUROLOGY": "NMED",
            "ORTHOPAEDICS": "ORTHO", "SURGERY": "SURG"}
CARE_UNITS = {"MED": "Medicine", "CMED": "Coronary Care Unit (CCU)", "NMED": "Neurology",
              "ORTHO": "Orthopaedics", "SURG": "Med/Surg"}
RADIOLOGY = (
    ("CHEST (PA AND LAT)", "Shortness of breath.", "Heart size is mildly enlarged. Small "
     "bilateral pleural effusions. No pneumothorax.", "Mild cardiomegaly with small effusions."),
    ("CT HEAD W/O CONTRAST", "Confusion, evaluate for bleed.", "No acute intracranial "
     "hemorrhage. Chronic small vessel ischemic changes.", "No acute intracranial process."),
    ("HIP 2 VIEWS RIGHT", "Fall, right hip pain.", "Displaced fracture of the right femoral "
     "neck.", "Right femoral neck fracture."),
)
