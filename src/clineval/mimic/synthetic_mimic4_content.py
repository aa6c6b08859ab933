"""Dictionaries of the synthetic MIMIC-IV: procedures, lab items, drugs, and small files in the
formats of the licensed code systems (LOINC hierarchy, NDC -> ATC), written for the project.

ICD-10-PCS codes and titles, LOINC numbers of the lab items (as mimic-code maps them) and ATC
codes are real; NDCs and the LOINC hierarchy's LP parts are synthetic (``LPD...``).
"""

from __future__ import annotations

from dataclasses import dataclass

#: ICD-10-PCS (code, title), with the ICD-9-CM procedure of the same meaning (for admissions coded
#: before October 2015).
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
    ("027034Z", "Dilation of Coronary Artery, One Artery with Drug-eluting Intraluminal Device, "
     "Percutaneous Approach"),
    ("5A09357", "Assistance with Respiratory Ventilation, Less than 24 Consecutive Hours, "
     "Continuous Positive Airway Pressure"),
    ("B030ZZZ", "Magnetic Resonance Imaging (MRI) of Brain"),
    ("B246ZZZ", "Ultrasonography of Right and Left Heart"),
    ("0T9B70Z", "Drainage of Bladder with Drainage Device, Via Natural or Artificial Opening"),
)
#: ICD-9-CM procedures (code, title), for admissions coded before October 2015.
PCS_ICD9 = (
    ("9671", "Continuous invasive mechanical ventilation for less than 96 consecutive hours"),
    ("3893", "Venous catheterization, not elsewhere classified"),
    ("4513", "Other endoscopy of small intestine"),
    ("9904", "Transfusion of packed cells"),
    ("8152", "Partial hip replacement"),
    ("8856", "Coronary arteriography using two catheters"),
    ("3722", "Left heart cardiac catheterization"),
    ("3607", "Insertion of drug-eluting coronary artery stent(s)"),
    ("9390", "Non-invasive mechanical ventilation"),
    ("8891", "Magnetic resonance imaging of brain and brain stem"),
    ("8872", "Diagnostic ultrasound of heart"),
    ("5794", "Insertion of indwelling urinary catheter"),
)
#: ICD-10-PCS -> the ICD-9-CM procedure of the same meaning.
PCS_TO_ICD9 = {"5A1935Z": "9671", "02HV33Z": "3893", "0DJ08ZZ": "4513", "30233N1": "9904",
               "0SRR0J9": "8152", "B2111ZZ": "8856", "4A023N7": "3722", "027034Z": "3607",
               "5A09357": "9390", "B030ZZZ": "8891", "B246ZZZ": "8872", "0T9B70Z": "5794"}


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
    group: str  #: the synthetic hierarchy's third level (a key of LOINC_GROUPS)


#: Lab items: real MIMIC-IV itemids, labels and units, with the LOINC numbers MIMIC-IV's
#: published lab mapping gives them (facts; the demo's map is written from this list).
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
    LabSpec(50960, "Magnesium", "Blood", "Chemistry", "19123-9", "mg/dL", 1.6, 2.6,
            "electrolytes"),
    LabSpec(50893, "Calcium, Total", "Blood", "Chemistry", "17861-6", "mg/dL", 8.4, 10.3,
            "electrolytes"),
    LabSpec(50931, "Glucose", "Blood", "Chemistry", "2345-7", "mg/dL", 70, 100, "metabolic"),
    LabSpec(52031, "Osmolality", "Blood", "Blood Gas", "2692-2", "mOsm/kg", 275, 295,
            "metabolic"),
    LabSpec(50993, "Thyroid Stimulating Hormone", "Blood", "Chemistry", "3016-3", "uIU/mL",
            0.27, 4.2, "endocrine"),
    LabSpec(50909, "Cortisol", "Blood", "Chemistry", "2143-6", "ug/dL", 5, 25, "endocrine"),
    LabSpec(51003, "Troponin T", "Blood", "Chemistry", "6598-7", "ng/mL", 0.0, 0.01, "cardiac"),
    LabSpec(50963, "NTproBNP", "Blood", "Chemistry", "33762-6", "pg/mL", 0, 353, "cardiac"),
    LabSpec(50910, "Creatine Kinase (CK)", "Blood", "Chemistry", "2157-6", "IU/L", 0, 190,
            "cardiac"),
    LabSpec(50861, "Alanine Aminotransferase (ALT)", "Blood", "Chemistry", "1742-6", "IU/L", 0,
            40, "liver"),
    LabSpec(50878, "Asparate Aminotransferase (AST)", "Blood", "Chemistry", "1920-8", "IU/L", 0,
            40, "liver"),
    LabSpec(50863, "Alkaline Phosphatase", "Blood", "Chemistry", "6768-6", "IU/L", 35, 105,
            "liver"),
    LabSpec(50885, "Bilirubin, Total", "Blood", "Chemistry", "1975-2", "mg/dL", 0, 1.5, "liver"),
    LabSpec(50956, "Lipase", "Blood", "Chemistry", "3040-3", "IU/L", 0, 60, "pancreas"),
    LabSpec(50922, "Ethanol", "Blood", "Chemistry", "5640-8", "mg/dL", 0, 10, "toxicology"),
    LabSpec(50813, "Lactate", "Blood", "Blood Gas", "32693-4", "mmol/L", 0.5, 2.0, "lactate"),
    LabSpec(50820, "pH", "Blood", "Blood Gas", "11558-4", "units", 7.35, 7.45, "blood gas"),
    LabSpec(50818, "pCO2", "Blood", "Blood Gas", "11557-6", "mm Hg", 35, 45, "blood gas"),
    LabSpec(51222, "Hemoglobin", "Blood", "Hematology", "718-7", "g/dL", 13.7, 17.5,
            "red cells"),
    LabSpec(51221, "Hematocrit", "Blood", "Hematology", "4544-3", "%", 40, 51, "red cells"),
    LabSpec(51301, "White Blood Cells", "Blood", "Hematology", "6690-2", "K/uL", 4, 11,
            "white cells and platelets"),
    LabSpec(51265, "Platelet Count", "Blood", "Hematology", "777-3", "K/uL", 150, 400,
            "white cells and platelets"),
    LabSpec(51237, "INR(PT)", "Blood", "Hematology", "6301-6", "", 0.9, 1.1, "clotting"),
    LabSpec(51274, "PT", "Blood", "Hematology", "5902-2", "sec", 9.4, 12.5, "clotting"),
    LabSpec(51275, "PTT", "Blood", "Hematology", "14979-9", "sec", 25, 36.5, "clotting"),
    LabSpec(50915, "D-Dimer", "Blood", "Chemistry", "48065-7", "ng/mL", 0, 500, "fibrinolysis"),
    LabSpec(51491, "pH", "Urine", "Hematology", "5803-2", "units", 5, 8, "urine acidity"),
    LabSpec(51498, "Specific Gravity", "Urine", "Hematology", "5811-5", "", 1.001, 1.035,
            "urine acidity"),
    LabSpec(51487, "Nitrite", "Urine", "Hematology", "5802-4", "", None, None,
            "urine markers"),
    LabSpec(51463, "Bacteria", "Urine", "Hematology", "5769-5", "", None, None,
            "urine organisms"),
    LabSpec(51486, "Leukocytes", "Urine", "Hematology", "20455-2", "", None, None,
            "urine cells"),
)
#: The synthetic LOINC hierarchy (ComponentHierarchyBySystem's layout): level 1 -> level 2 ->
#: level 3 -> term, with at least two nodes at every level and two children under every node
#: of levels 1 and 2, so that no lab answer reaches a level's node by the hierarchy's shape.
LOINC_LEVEL1 = {
    "chemistry": ("LPD0100", "Chemistry"),
    "hematology": ("LPD0200", "Hematology and coagulation"),
    "urinalysis": ("LPD0300", "Urinalysis"),
}
LOINC_LEVEL2 = {  # key -> (code, text, level-1 key)
    "serum chemistry": ("LPD0110", "Serum chemistry", "chemistry"),
    "markers": ("LPD0120", "Enzymes, markers and drugs", "chemistry"),
    "blood gases": ("LPD0130", "Blood gases", "chemistry"),
    "blood count": ("LPD0210", "Blood count", "hematology"),
    "coagulation": ("LPD0220", "Coagulation", "hematology"),
    "urine chemistry": ("LPD0310", "Urine chemistry", "urinalysis"),
    "urine microscopy": ("LPD0320", "Urine microscopy", "urinalysis"),
}
LOINC_GROUPS = {  # key -> (code, text, level-2 key)
    "electrolytes": ("LPD0111", "Electrolytes", "serum chemistry"),
    "renal": ("LPD0112", "Renal function", "serum chemistry"),
    "metabolic": ("LPD0113", "Metabolic", "serum chemistry"),
    "endocrine": ("LPD0114", "Endocrine", "serum chemistry"),
    "cardiac": ("LPD0121", "Cardiac markers", "markers"),
    "liver": ("LPD0122", "Liver function", "markers"),
    "pancreas": ("LPD0123", "Pancreatic enzymes", "markers"),
    "toxicology": ("LPD0124", "Toxicology", "markers"),
    "blood gas": ("LPD0131", "Acid-base", "blood gases"),
    "lactate": ("LPD0132", "Lactate", "blood gases"),
    "red cells": ("LPD0211", "Red cells", "blood count"),
    "white cells and platelets": ("LPD0212", "White cells and platelets", "blood count"),
    "clotting": ("LPD0221", "Clotting times", "coagulation"),
    "fibrinolysis": ("LPD0222", "Fibrinolysis", "coagulation"),
    "urine acidity": ("LPD0311", "Urine acidity and concentration", "urine chemistry"),
    "urine markers": ("LPD0312", "Urine chemical markers", "urine chemistry"),
    "urine cells": ("LPD0321", "Urine cells", "urine microscopy"),
    "urine organisms": ("LPD0322", "Urine organisms", "urine microscopy"),
}


def lab(label: str, fluid: str = "Blood") -> LabSpec:
    """The lab item of ``label`` (and ``fluid``)."""
    return next(x for x in LABS if x.label == label and x.fluid == fluid)


@dataclass(frozen=True)
class Drug:
    name: str  #: as MIMIC-IV's prescriptions name it
    ndc: str  #: synthetic, 11 digits
    atc: str  #: ATC level 5
    line: str  #: prod_strength
    #: the substance's name in the ATC names file (default: ``name`` in lower case)
    generic: str = ""

    @property
    def substance(self) -> str:
        return self.generic or self.name.lower()


DRUGS = (
    Drug("Metformin", "00093104801", "A10BA02", "500mg Tablet"),
    Drug("Insulin Glargine", "00088221905", "A10AE04", "100 Units / mL - 10 mL Vial"),
    Drug("Heparin", "63323026201", "B01AB01", "5000 Units / mL- 1mL Vial"),
    Drug("Aspirin", "63739052210", "B01AC06", "81mg Tablet"),
    Drug("Atorvastatin", "00071015623", "C10AA05", "40mg Tablet"),
    Drug("Metoprolol Tartrate", "51079025520", "C07AB02", "25mg Tablet", "metoprolol"),
    Drug("Lisinopril", "68180051301", "C09AA03", "10mg Tablet"),
    Drug("Furosemide", "00054429731", "C03CA01", "20mg Tablet"),
    Drug("Pantoprazole", "00008084199", "A02BC02", "40mg Tablet"),
    Drug("CeftriaXONE", "00409733201", "J01DD04", "1g Vial"),
    Drug("Vancomycin", "00338355248", "J01XA01", "1g / 200 mL Frozen Bag"),
    Drug("Acetaminophen", "00904198861", "N02BE01", "325mg Tablet"),
    Drug("Ondansetron", "00781303105", "A04AA01", "2mg / mL - 2 mL Vial"),
    Drug("Potassium Chloride", "58177000111", "A12BA01", "20mEq Tablet"),
    Drug("Senna", "00536355401", "A06AB06", "8.6mg Tablet"),
    Drug("Torsemide", "60000000101", "C03CA04", "20mg Tablet"),
    Drug("Azithromycin", "60000000201", "J01FA10", "250mg Tablet"),
    Drug("Cefpodoxime Proxetil", "60000000301", "J01DD13", "200mg Tablet", "cefpodoxime"),
    Drug("Ciprofloxacin HCl", "60000000401", "J01MA02", "500mg Tablet", "ciprofloxacin"),
    Drug("Sodium Chloride 0.9%", "60000000501", "B05XA03", "1000 mL Bag", "sodium chloride"),
    Drug("Ticagrelor", "60000000601", "B01AC24", "90mg Tablet"),
    Drug("Albuterol 0.083% Neb Soln", "60000000701", "R03AC02", "2.5mg / 3 mL Vial", "albuterol"),
    Drug("Ipratropium Bromide Neb", "60000000801", "R03BB01", "0.5mg / 2.5 mL Vial",
          "ipratropium bromide"),
    Drug("PredniSONE", "60000000901", "H02AB07", "20mg Tablet"),
    Drug("Ferrous Sulfate", "60000001001", "B03AA07", "325mg Tablet"),
    Drug("HYDROmorphone (Dilaudid)", "60000001101", "N02AA03", "1mg / mL Syringe", "hydromorphone"),
    Drug("Thiamine", "60000001201", "A11DA01", "100mg Tablet"),
    Drug("Folic Acid", "60000001301", "B03BB01", "1mg Tablet"),
    Drug("Apixaban", "60000001401", "B01AF02", "5mg Tablet"),
    Drug("Rivaroxaban", "60000001501", "B01AF01", "15mg Tablet"),
    Drug("CeFAZolin", "60000001601", "J01DB04", "1g Vial"),
    Drug("Cephalexin", "60000001701", "J01DB01", "500mg Capsule"),
    Drug("OxyCODONE (Immediate Release)", "60000001801", "N02AA05", "5mg Tablet", "oxycodone"),
    Drug("Enoxaparin Sodium", "60000001901", "B01AB05", "40mg / 0.4 mL Syringe", "enoxaparin"),
    Drug("Amlodipine", "60000002001", "C08CA01", "5mg Tablet"),
    Drug("Levothyroxine Sodium", "60000002101", "H03AA01", "75mcg Tablet"),
    Drug("Omeprazole", "60000002201", "A02BC01", "20mg Capsule"),
    Drug("Sertraline", "60000002301", "N06AB06", "50mg Tablet"),
    Drug("Tamsulosin", "60000002401", "G04CA02", "0.4mg Capsule"),
    Drug("Gabapentin", "60000002501", "N03AX12", "300mg Capsule"),
    Drug("Vitamin D", "60000002601", "A11CC05", "1000 UNIT Tablet", "colecalciferol (vitamin d)"),
)
#: ATC names of the groups above (levels 1-4) and of the substances (WHO ATC names).
ATC_NAMES = {
    "A": "Alimentary tract and metabolism", "A02": "Drugs for acid related disorders",
    "A02B": "Drugs for peptic ulcer and gastro-oesophageal reflux disease",
    "A02BC": "Proton pump inhibitors", "A04": "Antiemetics and antinauseants",
    "A04A": "Antiemetics and antinauseants", "A04AA": "Serotonin (5HT3) antagonists",
    "A06": "Drugs for constipation", "A06A": "Drugs for constipation",
    "A06AB": "Contact laxatives", "A10": "Drugs used in diabetes", "A10A": "Insulins and analogues",
    "A10AE": "Insulins and analogues for injection, long-acting",
    "A10B": "Blood glucose lowering drugs, excl. insulins", "A10BA": "Biguanides",
    "A11": "Vitamins", "A11C": "Vitamin A and D, incl. combinations of the two",
    "A11CC": "Vitamin D and analogues",
    "A11D": "Vitamin B1, plain and in combination with vitamin B6 and B12",
    "A11DA": "Vitamin B1, plain",
    "A12": "Mineral supplements", "A12B": "Potassium", "A12BA": "Potassium",
    "B": "Blood and blood forming organs", "B01": "Antithrombotic agents",
    "B01A": "Antithrombotic agents", "B01AB": "Heparin group",
    "B01AC": "Platelet aggregation inhibitors excl. heparin",
    "B01AF": "Direct factor Xa inhibitors",
    "B03": "Antianemic preparations", "B03A": "Iron preparations",
    "B03AA": "Iron bivalent, oral preparations", "B03B": "Vitamin B12 and folic acid",
    "B03BB": "Folic acid and derivatives",
    "B05": "Blood substitutes and perfusion solutions", "B05X": "I.V. solution additives",
    "B05XA": "Electrolyte solutions",
    "C": "Cardiovascular system", "C03": "Diuretics", "C03C": "High-ceiling diuretics",
    "C03CA": "Sulfonamides, plain", "C07": "Beta blocking agents",
    "C07A": "Beta blocking agents", "C07AB": "Beta blocking agents, selective",
    "C08": "Calcium channel blockers",
    "C08C": "Selective calcium channel blockers with mainly vascular effects",
    "C08CA": "Dihydropyridine derivatives",
    "C09": "Agents acting on the renin-angiotensin system", "C09A": "ACE inhibitors, plain",
    "C09AA": "ACE inhibitors, plain", "C10": "Lipid modifying agents",
    "C10A": "Lipid modifying agents, plain", "C10AA": "HMG CoA reductase inhibitors",
    "G": "Genito urinary system and sex hormones", "G04": "Urologicals",
    "G04C": "Drugs used in benign prostatic hypertrophy",
    "G04CA": "Alpha-adrenoreceptor antagonists",
    "H": "Systemic hormonal preparations, excl. sex hormones and insulins",
    "H02": "Corticosteroids for systemic use", "H02A": "Corticosteroids for systemic use, plain",
    "H02AB": "Glucocorticoids", "H03": "Thyroid therapy", "H03A": "Thyroid preparations",
    "H03AA": "Thyroid hormones",
    "J": "Antiinfectives for systemic use", "J01": "Antibacterials for systemic use",
    "J01D": "Other beta-lactam antibacterials", "J01DB": "First-generation cephalosporins",
    "J01DD": "Third-generation cephalosporins",
    "J01F": "Macrolides, lincosamides and streptogramins", "J01FA": "Macrolides",
    "J01M": "Quinolone antibacterials", "J01MA": "Fluoroquinolones",
    "J01X": "Other antibacterials", "J01XA": "Glycopeptide antibacterials",
    "N": "Nervous system", "N02": "Analgesics", "N02A": "Opioids",
    "N02AA": "Natural opium alkaloids", "N02B": "Other analgesics and antipyretics",
    "N02BE": "Anilides", "N03": "Antiepileptics", "N03A": "Antiepileptics",
    "N03AX": "Other antiepileptics", "N06": "Psychoanaleptics", "N06A": "Antidepressants",
    "N06AB": "Selective serotonin reuptake inhibitors",
    "R": "Respiratory system", "R03": "Drugs for obstructive airway diseases",
    "R03A": "Adrenergics, inhalants", "R03AC": "Selective beta-2-adrenoreceptor agonists",
    "R03B": "Other drugs for obstructive airway diseases, inhalants",
    "R03BB": "Anticholinergics",
    **{d.atc: d.substance for d in DRUGS},
}


def drug(name: str) -> Drug:
    return next(d for d in DRUGS if d.name == name)


#: The drug each chronic condition's home medication is (prescribed again at admission).
CHRONIC_DRUGS = {"I10": "Lisinopril", "E119": "Metformin", "E785": "Atorvastatin",
                 "E039": "Levothyroxine Sodium", "K219": "Omeprazole", "F329": "Sertraline",
                 "M1990": "Acetaminophen", "J45909": "Albuterol 0.083% Neb Soln",
                 "N401": "Tamsulosin", "G8929": "Gabapentin", "E559": "Vitamin D"}

BMP = ("Sodium", "Potassium", "Chloride", "Bicarbonate", "Anion Gap", "Urea Nitrogen",
       "Creatinine", "Glucose")
CBC = ("Hemoglobin", "Hematocrit", "White Blood Cells", "Platelet Count")
COAGULATION = ("INR(PT)", "PT", "PTT")
URINALYSIS = (("pH", "Urine"), ("Specific Gravity", "Urine"), ("Nitrite", "Urine"),
              ("Bacteria", "Urine"), ("Leukocytes", "Urine"))


@dataclass(frozen=True)
class Scenario:
    """What one admission problem (by its principal ICD-10-CM code) brings in MIMIC-IV: the
    procedures with their day after admission (the first date is the first batch), the first
    lab panel (labels, or (label, fluid)), lab values outside the normal range (label -> range;
    text results -> their text), the first prescriptions (at +2 h), one later prescription (at
    +2 days), the chronic conditions' drugs it holds, and its radiology reports (exam,
    indication, findings, impression)."""

    procedures: tuple[tuple[str, int], ...]
    labs: tuple[str | tuple[str, str], ...]
    values: dict[str, tuple[float, float] | str]
    drugs: tuple[str, ...]
    later_drug: str
    radiology: tuple[tuple[str, str, str, str], ...]
    held: tuple[str, ...] = ()


_CHEST = "CHEST (PA AND LAT)"
_PORTABLE = "CHEST (PORTABLE AP)"
SCENARIOS = {
    "I5023": Scenario(
        (("5A09357", 0), ("B246ZZZ", 1)), (*BMP, *CBC, "NTproBNP", "Troponin T", "Magnesium"),
        {"NTproBNP": (2000, 4000), "Potassium": (3.0, 3.2), "Creatinine": (1.3, 1.5)},
        ("Furosemide", "Potassium Chloride", "Heparin"), "Torsemide",
        ((_CHEST, "Shortness of breath.", "Pulmonary vascular congestion. Small bilateral "
          "pleural effusions. No pneumothorax.", "Pulmonary edema with small effusions."),)),
    "J189": Scenario(
        (), (*BMP, *CBC, "Lactate"), {"White Blood Cells": (15, 18), "Sodium": (129, 132)},
        ("CeftriaXONE", "Azithromycin", "Acetaminophen"), "Cefpodoxime Proxetil",
        ((_CHEST, "Fever and cough.", "Right lower lobe consolidation. No effusion.",
          "Right lower lobe pneumonia."),)),
    "A419": Scenario(
        (("02HV33Z", 0), ("0T9B70Z", 0)), (*BMP, *CBC, "Lactate", *URINALYSIS),
        {"White Blood Cells": (17, 20), "Lactate": (3.0, 3.4), "Creatinine": (2.0, 2.3),
         "Nitrite": "POS", "Bacteria": "MANY", "Leukocytes": "LG"},
        ("CeftriaXONE", "Sodium Chloride 0.9%", "Acetaminophen"), "Ciprofloxacin HCl",
        ((_PORTABLE, "Fever, evaluate for pneumonia.", "No focal consolidation.",
          "No acute cardiopulmonary process."),), held=("Lisinopril", "Metformin")),
    "I214": Scenario(
        (("4A023N7", 0), ("B2111ZZ", 0), ("027034Z", 0), ("B246ZZZ", 3)),
        (*BMP, *CBC, "Troponin T", "Creatine Kinase (CK)", *COAGULATION),
        {"Troponin T": (0.1, 0.5), "Potassium": (3.0, 3.2)},
        ("Aspirin", "Ticagrelor", "Heparin", "Atorvastatin"), "Metoprolol Tartrate",
        ((_PORTABLE, "Chest pain.", "No focal consolidation. Normal heart size.",
          "No acute cardiopulmonary process."),), held=("Metformin",)),
    "J441": Scenario(
        (("5A09357", 0),), (*BMP, *CBC, ("pH", "Blood"), "pCO2"),
        {"pH": (7.32, 7.34), "pCO2": (50, 54)},
        ("Albuterol 0.083% Neb Soln", "Ipratropium Bromide Neb", "PredniSONE", "Azithromycin"),
        "Acetaminophen",
        ((_CHEST, "Wheezing, shortness of breath.", "Hyperinflated lungs. No consolidation.",
          "Hyperinflation without pneumonia."),)),
    "K922": Scenario(
        (("30233N1", 0), ("0DJ08ZZ", 1)), (*BMP, *CBC, *COAGULATION),
        {"Hemoglobin": (6.5, 7.2), "Hematocrit": (20, 23), "Urea Nitrogen": (44, 50)},
        ("Pantoprazole", "Sodium Chloride 0.9%"), "Ferrous Sulfate", ()),
    "K8590": Scenario(
        (), (*BMP, *CBC, "Lipase", "Alanine Aminotransferase (ALT)",
             "Asparate Aminotransferase (AST)", "Alkaline Phosphatase", "Bilirubin, Total",
             "Calcium, Total", "Ethanol"),
        {"Lipase": (2000, 2600), "Ethanol": (80, 150)},
        ("Sodium Chloride 0.9%", "HYDROmorphone (Dilaudid)", "Ondansetron", "Thiamine",
         "Folic Acid"), "Pantoprazole",
        (("CT ABD & PELVIS WITH CONTRAST", "Epigastric pain radiating to the back.",
          "Edematous pancreas with peripancreatic fat stranding. No necrosis. No gallstones.",
          "Acute interstitial pancreatitis."),)),
    "I639": Scenario(
        (("B030ZZZ", 0), ("B246ZZZ", 1)), (*BMP, *CBC, *COAGULATION, "Troponin T"), {},
        ("Aspirin", "Atorvastatin"), "Apixaban",
        (("CT HEAD W/O CONTRAST", "Right arm weakness, slurred speech.", "No acute "
          "intracranial hemorrhage. Chronic small vessel ischemic changes.", "No hemorrhage."),
         ("MR HEAD W/O CONTRAST", "Right arm weakness, evaluate for infarct.", "Restricted "
          "diffusion in the left MCA territory.", "Acute left MCA infarct."))),
    "I2699": Scenario(
        (), (*BMP, *CBC, "D-Dimer", "Troponin T"), {"D-Dimer": (1800, 2400)},
        ("Heparin", "Acetaminophen"), "Rivaroxaban",
        (("CTA CHEST", "Pleuritic chest pain, dyspnea.", "Filling defect in a segmental "
          "artery of the right lower lobe. No right heart strain.",
          "Right lower lobe segmental pulmonary embolism."),)),
    "L03115": Scenario(
        (), (*BMP, *CBC, "Lactate"), {"White Blood Cells": (12, 14)},
        ("CeFAZolin", "Acetaminophen"), "Cephalexin",
        (("BILAT LOWER EXT VEINS", "Right leg redness and swelling.", "No deep vein "
          "thrombosis in either leg.", "No DVT."),)),
    "S72001A": Scenario(
        (("0SRR0J9", 1), ("30233N1", 3)), (*BMP, *CBC, *COAGULATION),
        {"Hemoglobin": (11.0, 12.0)},
        ("Acetaminophen", "OxyCODONE (Immediate Release)", "Senna"), "Enoxaparin Sodium",
        (("HIP 2 VIEWS RIGHT", "Fall, right hip pain.", "Displaced fracture of the right "
          "femoral neck.", "Right femoral neck fracture."),
         (_PORTABLE, "Preoperative assessment.", "Clear lungs.",
          "No acute cardiopulmonary process."))),
    "E871": Scenario(
        (), (*BMP, "Osmolality", "Thyroid Stimulating Hormone", "Cortisol"),
        {"Sodium": (119, 122), "Osmolality": (255, 260), "Chloride": (86, 90)},
        ("Sodium Chloride 0.9%",), "Amlodipine",
        ((_CHEST, "Weakness.", "Clear lungs. Normal heart size.",
          "No acute cardiopulmonary process."),), held=("Lisinopril",)),
}
SERVICES = {"MEDICINE": "MED", "CARDIOLOGY": "CMED", "NEUROLOGY": "NMED",
            "ORTHOPAEDICS": "ORTHO", "SURGERY": "SURG"}
CARE_UNITS = {"MED": "Medicine", "CMED": "Coronary Care Unit (CCU)", "NMED": "Neurology",
              "ORTHO": "Orthopaedics", "SURG": "Med/Surg"}
