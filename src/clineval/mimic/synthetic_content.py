"""Clinical content for synthetic discharge summaries: admission problems and chronic conditions.

Written for the project; every code is in ``clineval.mimic.icd10.CODES``. A problem's first code
is the principal diagnosis; the lay sentences are what a patient letter tells the patient.

What the admission record (chief complaint, HPI, past medical history) names, and what it does
not: a patient's chronic conditions are named in the HPI and the past medical history, as real
discharge summaries name comorbidities; the admission's new diagnoses (``Problem.codes``) and
the conditions that arise during the stay (``Problem.hospital``) are never named there (the
record reports symptoms, signs and results). So at most half of an admission's codes are named
in the history the prompt shows (:data:`HISTORY_SHARE`; docs/clibench.md, "Demo data").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    codes: tuple[str, ...]
    service: str
    complaint: str
    hpi: str  #: formatted with age, sex, pmh
    results: str
    course: str
    procedure: str
    diagnosis: str
    why: str  #: lay: why the patient was admitted
    what: str  #: lay: what was done in hospital
    medication: str  #: lay: the medication change
    new_med: str  #: discharge medication line
    todo: str  #: lay: what to do after discharge
    #: Diagnoses that arise during the stay (coded at discharge, never in the admission record).
    hospital: tuple[str, ...] = ()
    #: Words that would name the stay's diagnoses (``codes`` and ``hospital``); the history
    #: parts of the admission record never hold them (tests/clibench/test_clibench_demo_data.py).
    names: tuple[str, ...] = ()
    #: Chronic conditions the problem implies (a thiazide-induced hyponatremia: hypertension).
    requires: tuple[str, ...] = ()
    #: A medication on admission the problem's history implies (the thiazide).
    home_med: str = ""


@dataclass(frozen=True)
class Chronic:
    code: str
    history: str
    home_med: str
    #: How the HPI names it ("a 47 y/o man with hypertension and ...").
    name: str = ""


#: The most an admission's diagnoses that its history (HPI, past medical history, the previous
#: admission's diagnoses) names may be, as a share of all its diagnosis codes: the chronic
#: conditions, never more than the admission's new and in-hospital diagnoses together.
HISTORY_SHARE = 0.5


PROBLEMS = (
    Problem(
        ("I5023", "J9601"), "MEDICINE", "shortness of breath, leg swelling",
        "{age} y/o {sex} with {pmh} who presents with 5 days of worsening dyspnea on exertion, "
        "3-pillow orthopnea and bilateral leg swelling after running out of {pos} diuretic. "
        "In the ED SpO2 was 86% on RA, improved to 94% on 4L NC.",
        "BNP 2450. Trop-T <0.01 x2. Cr 1.3. CXR: pulmonary vascular congestion with small "
        "bilateral effusions. TTE: LVEF 30%, moderate MR.",
        "# Acute on chronic systolic HF: diuresed with IV furosemide 80 mg BID with net negative "
        "6 L; transitioned to PO torsemide. Weaned to room air on HD3. Discharge weight 81.2 kg.\n"
        "# Hypoxic respiratory failure: resolved with diuresis.",
        "None", "Acute on chronic systolic heart failure; acute hypoxic respiratory failure",
        "because fluid had built up in your lungs and legs from a flare of your heart failure",
        "We gave you water pills through the IV to remove the extra fluid, and your breathing "
        "improved so that you no longer needed oxygen.",
        "We started a new water pill called torsemide in place of your old one.",
        "Torsemide 40 mg PO DAILY",
        "Weigh yourself every morning and call your doctor if your weight goes up by more than "
        "3 lbs in a day or 5 lbs in a week.",
        hospital=("E876",),
        names=("heart failure", "respiratory failure", "hypokalemia"),
    ),
    Problem(
        ("J189",), "MEDICINE", "fever, productive cough",
        "{age} y/o {sex} with {pmh} presenting with 3 days of fever to 102, cough productive of "
        "yellow sputum and right-sided pleuritic chest pain.",
        "WBC 16.2 with 88% PMNs. Lactate 1.6. CXR: right lower lobe consolidation. Blood "
        "cultures no growth.",
        "# Community-acquired pneumonia: treated with ceftriaxone and azithromycin, then "
        "narrowed to PO cefpodoxime to complete a 5-day course. Afebrile since HD2.",
        "None", "Community-acquired pneumonia (right lower lobe)",
        "because you had a lung infection (pneumonia) in your right lung",
        "We treated the infection with antibiotics through the IV and then by mouth, and your "
        "fevers went away.",
        "You will take an antibiotic called cefpodoxime for 2 more days.",
        "Cefpodoxime Proxetil 200 mg PO Q12H Duration: 2 Days",
        "Finish all of your antibiotics even if you feel well, and see your primary care doctor "
        "within 1 week.",
        hospital=("E871",),
        names=("pneumonia", "hyponatremia"),
    ),
    Problem(
        ("A419", "N390", "N179"), "MEDICINE", "confusion, fever",
        "{age} y/o {sex} with {pmh} brought in by family for 1 day of confusion, fever and "
        "dysuria. In the ED T 101.8, HR 112, BP 88/50, improved after 3 L of IV fluids.",
        "WBC 18.4. Lactate 3.1 -> 1.4. Cr 2.1 (baseline 1.0). UA: >182 WBC, positive nitrite. "
        "Urine culture: E. coli, pan-sensitive.",
        "# Sepsis from urinary source: received IV fluids and ceftriaxone, narrowed to PO "
        "ciprofloxacin per sensitivities. Mental status back to baseline by HD2.\n"
        "# AKI: prerenal, Cr back to 1.1 with fluids. Lisinopril held.",
        "None", "Sepsis due to urinary tract infection; acute kidney injury",
        "because a bladder infection had spread into your blood and made you confused and your "
        "blood pressure low",
        "We gave you fluids and antibiotics through the IV. Your kidneys were also strained by "
        "the infection and recovered with fluids.",
        "We stopped your lisinopril for now and started an antibiotic called ciprofloxacin.",
        "Ciprofloxacin HCl 500 mg PO Q12H Duration: 5 Days",
        "Do not restart your lisinopril until your primary care doctor checks your kidney "
        "function next week.",
        hospital=("I959",),
        names=("sepsis", "urinary tract infection", "kidney injury", "hypotension"),
    ),
    Problem(
        ("I214", "I2510"), "CARDIOLOGY", "chest pain",
        "{age} y/o {sex} with {pmh} who developed substernal chest pressure radiating to the "
        "left arm while shoveling snow, lasting 40 minutes.",
        "Trop-T 0.12 -> 0.48 -> 0.31. ECG: 1 mm ST depressions in V4-V6. Cath: 90% mid-LAD "
        "stenosis, s/p DES x1.",
        "# NSTEMI: loaded with aspirin and ticagrelor, heparin gtt. Cardiac cath with 1 drug-"
        "eluting stent to the mid-LAD. Started atorvastatin 80 mg and metoprolol.",
        "Cardiac catheterization with drug-eluting stent to the LAD",
        "Non-ST elevation myocardial infarction; coronary artery disease",
        "because you had a heart attack caused by a blocked artery in your heart",
        "We opened the blocked artery and placed a small metal tube called a stent to keep it "
        "open.",
        "You must take aspirin and ticagrelor every day so that the stent does not clot.",
        "Ticagrelor 90 mg PO BID",
        "Do not stop ticagrelor unless your cardiologist tells you to, and join the cardiac "
        "rehabilitation program.",
        hospital=("E876",),
        names=("myocardial infarction", "NSTEMI", "coronary artery disease", "hypokalemia"),
    ),
    Problem(
        ("J441",), "MEDICINE", "wheezing, shortness of breath",
        "{age} y/o {sex} with {pmh} presenting with 4 days of increased sputum, wheezing and "
        "dyspnea after a viral illness.",
        "VBG 7.34/52. CXR: hyperinflation without consolidation. Influenza negative.",
        "# COPD exacerbation: nebulized albuterol/ipratropium, prednisone 40 mg x5 days and "
        "azithromycin. Ambulating on RA with SpO2 92% at discharge.",
        "None", "COPD exacerbation",
        "because your COPD flared up and made it hard to breathe",
        "We gave you breathing treatments, steroids and an antibiotic, and your breathing "
        "improved.",
        "You will take prednisone, a steroid, for 2 more days.",
        "PredniSONE 40 mg PO DAILY Duration: 2 Days",
        "Use your inhalers every day as prescribed and do not smoke.",
        hospital=("J9601", "F17210"),
        names=("COPD", "respiratory failure", "nicotine dependence"),
    ),
    Problem(
        ("K922", "D649"), "MEDICINE", "black stools, lightheadedness",
        "{age} y/o {sex} with {pmh} on daily ibuprofen for knee pain presenting with 2 days of "
        "black tarry stools and lightheadedness on standing.",
        "Hgb 6.9 (baseline 12). BUN 48. EGD: 1.5 cm clean-based duodenal ulcer. H. pylori "
        "serology negative.",
        "# Upper GI bleed: transfused 2 units pRBC, IV pantoprazole. EGD showed a duodenal ulcer "
        "without high-risk stigmata. Hgb stable at 8.9 for 48 hours.",
        "Upper endoscopy (EGD)", "Upper gastrointestinal bleed from duodenal ulcer; acute blood "
        "loss anemia",
        "because you were bleeding from an ulcer in your small intestine",
        "We gave you two blood transfusions and looked into your stomach with a camera, which "
        "showed the ulcer.",
        "We started pantoprazole to heal the ulcer and you must stop taking ibuprofen.",
        "Pantoprazole 40 mg PO Q12H",
        "Avoid ibuprofen, naproxen and aspirin, and come back right away if your stools turn "
        "black again.",
        hospital=("I959",),
        names=("bleed", "ulcer", "anemia", "hypotension"),
        home_med="Ibuprofen 600 mg PO TID:PRN knee pain",
    ),
    Problem(
        ("K8590", "F1020"), "MEDICINE", "epigastric pain, vomiting",
        "{age} y/o {sex} with {pmh} presenting with severe epigastric pain radiating to the back "
        "and vomiting after a weekend of heavy drinking.",
        "Lipase 2,340. TG 210. RUQ US: no gallstones. CT A/P: edematous pancreas, no necrosis.",
        "# Acute pancreatitis, alcohol-related: bowel rest, aggressive IV fluids and IV "
        "hydromorphone, diet advanced to low-fat on HD3.\n# Alcohol use disorder: CIWA scale, "
        "no withdrawal; social work consulted.",
        "None", "Acute alcohol-related pancreatitis; alcohol use disorder",
        "because your pancreas was inflamed (pancreatitis), most likely from drinking alcohol",
        "We rested your stomach, gave you fluids and pain medicine through the IV, and slowly "
        "restarted food.",
        "We started thiamine and folic acid, which are vitamins.",
        "Thiamine 100 mg PO DAILY",
        "Stop drinking alcohol completely, because drinking again can cause another, more "
        "dangerous attack.",
        hospital=("E860",),
        names=("pancreatitis", "alcohol use disorder", "alcohol dependence", "dehydration"),
    ),
    Problem(
        ("I639", "I4891"), "NEUROLOGY", "right arm weakness, slurred speech",
        "{age} y/o {sex} with {pmh} who was found by spouse with right arm weakness and slurred "
        "speech, last known well 3 hours prior.",
        "CT head: no hemorrhage. MRI brain: acute infarct in the left MCA territory. Telemetry: "
        "paroxysmal atrial fibrillation. LDL 132.",
        "# Acute ischemic stroke: outside the window for thrombolysis. Deficits improved. "
        "Cardioembolic source given new AF; apixaban started on HD4.",
        "None", "Acute ischemic stroke (left MCA); new atrial fibrillation",
        "because you had a stroke that caused weakness in your right arm and trouble speaking",
        "We found an irregular heart rhythm called atrial fibrillation, which likely caused the "
        "stroke.",
        "We started a blood thinner called apixaban to prevent another stroke.",
        "Apixaban 5 mg PO BID",
        "Call 911 right away if you have new weakness, numbness, facial droop or trouble "
        "speaking.",
        hospital=("Z7901",),
        names=("stroke", "infarct", "atrial fibrillation", "anticoagula"),
    ),
    Problem(
        ("I2699",), "MEDICINE", "pleuritic chest pain, dyspnea",
        "{age} y/o {sex} with {pmh} presenting with sudden right-sided pleuritic chest pain and "
        "dyspnea 10 days after a long flight.",
        "D-dimer 2,100. CTA chest: segmental PE in the right lower lobe, no right heart strain. "
        "Trop-T <0.01.",
        "# Pulmonary embolism: provoked by travel. Heparin gtt transitioned to rivaroxaban. "
        "Ambulating without hypoxia.",
        "None", "Pulmonary embolism, provoked",
        "because you had a blood clot in your lung",
        "We treated the clot with a blood thinner through the IV and then switched you to a pill.",
        "We started a blood thinner called rivaroxaban that you will take for at least 3 months.",
        "Rivaroxaban 15 mg PO BID",
        "Do not miss any doses of rivaroxaban and tell every doctor that you take a blood "
        "thinner.",
        hospital=("Z7901", "R0781"),
        names=("pulmonary embolism", "anticoagula", "pleurodynia"),
    ),
    Problem(
        ("L03115",), "MEDICINE", "right leg redness",
        "{age} y/o {sex} with {pmh} presenting with 3 days of spreading redness, warmth and pain "
        "of the right lower leg after a small cut while gardening.",
        "WBC 12.8. LENIs: no DVT. Blood cultures no growth.",
        "# Right lower extremity cellulitis: IV cefazolin with marked improvement of erythema, "
        "transitioned to PO cephalexin.",
        "None", "Right lower extremity cellulitis",
        "because you had a skin infection (cellulitis) of your right leg",
        "We treated the infection with antibiotics through the IV, and the redness got much "
        "smaller.",
        "You will take an antibiotic called cephalexin for 5 more days.",
        "Cephalexin 500 mg PO Q6H Duration: 5 Days",
        "Keep your leg raised when you sit and come back if the redness spreads or you get a "
        "fever.",
        hospital=("I872", "E860"),
        names=("cellulitis", "venous insufficiency", "dehydration"),
    ),
    Problem(
        ("S72001A", "W19XXXA"), "ORTHOPAEDICS", "right hip pain after fall",
        "{age} y/o {sex} with {pmh} who tripped over a rug at home and was unable to bear weight "
        "on the right leg.",
        "XR right hip: displaced femoral neck fracture. Hgb 11.2 post-op.",
        "# Right femoral neck fracture: right hip hemiarthroplasty on HD2 without complication. "
        "Weight bearing as tolerated. Enoxaparin for DVT prophylaxis x4 weeks.",
        "Right hip hemiarthroplasty", "Right femoral neck fracture after mechanical fall",
        "because you broke your right hip when you fell",
        "Our surgeons replaced the broken part of your hip in an operation, and you started "
        "walking with physical therapy.",
        "You will give yourself enoxaparin shots for 4 weeks to prevent blood clots.",
        "Enoxaparin Sodium 40 mg SC DAILY Duration: 4 Weeks",
        "Keep the incision clean and dry and have your staples removed at your follow-up visit "
        "in 2 weeks.",
        hospital=("D62",),
        names=("fracture", "anemia"),
    ),
    Problem(
        ("E871", "E860"), "MEDICINE", "weakness, poor oral intake",
        "{age} y/o {sex} with {pmh} presenting with 1 week of fatigue, nausea and poor oral "
        "intake after hydrochlorothiazide was increased.",
        "Na 121 -> 133. Serum osm 258. Urine Na 45. TSH and cortisol normal.",
        "# Hyponatremia: hypovolemic in the setting of thiazide use. HCTZ stopped, gentle NS, "
        "Na corrected by <8 per 24 h.",
        "None", "Hyponatremia due to thiazide diuretic; dehydration",
        "because the salt (sodium) level in your blood was very low and you were dehydrated",
        "We slowly corrected your sodium with fluids through the IV and stopped the medicine "
        "that caused it.",
        "We stopped your hydrochlorothiazide and started amlodipine for your blood pressure.",
        "Amlodipine 5 mg PO DAILY",
        "Have your blood drawn in 3 days to recheck your sodium level.",
        hospital=("T502X5A",),
        names=("hyponatremia", "dehydration", "adverse effect"),
        requires=("I10",),
        home_med="Hydrochlorothiazide 50 mg PO DAILY",
    ),
)

CHRONIC = (
    Chronic("I10", "Hypertension", "Lisinopril 20 mg PO DAILY", "hypertension"),
    Chronic("E119", "Type 2 diabetes (last A1c 7.1%)", "MetFORMIN (Glucophage) 1000 mg PO BID",
            "type 2 diabetes"),
    Chronic("E785", "Hyperlipidemia", "Atorvastatin 40 mg PO QPM", "hyperlipidemia"),
    Chronic("E039", "Hypothyroidism", "Levothyroxine Sodium 75 mcg PO DAILY", "hypothyroidism"),
    Chronic("K219", "GERD", "Omeprazole 20 mg PO DAILY", "GERD"),
    Chronic("F329", "Depression", "Sertraline 50 mg PO DAILY", "depression"),
    Chronic("G4733", "Obstructive sleep apnea on CPAP", "", "obstructive sleep apnea"),
    Chronic("N189", "Chronic kidney disease (baseline Cr 1.4)", "", "chronic kidney disease"),
    Chronic("M1990", "Osteoarthritis of both knees", "Acetaminophen 650 mg PO Q6H:PRN pain",
            "osteoarthritis"),
    Chronic("J45909", "Asthma", "Albuterol Inhaler 2 PUFF IH Q4H:PRN wheeze", "asthma"),
    Chronic("N401", "BPH with nocturia", "Tamsulosin 0.4 mg PO QHS", "BPH"),
    Chronic("G8929", "Chronic low back pain", "Gabapentin 300 mg PO TID", "chronic low back pain"),
    Chronic("E559", "Vitamin D deficiency", "Vitamin D 1000 UNIT PO DAILY", "vitamin D deficiency"),
    Chronic("Z87891", "Former smoker (30 pack-years, quit 2010)", "", "a remote smoking history"),
)
