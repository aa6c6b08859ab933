"""The synthetic demo knowledge base: 8 diseases x 18 aspects in zh and en, in the KB format.

Five ``demo`` diseases (the demonstrations) and three ``test`` diseases. Some values follow the
paper's Figure 7 (the demonstration diseases, their primary symptoms, the auxiliary examination
results shown there); the rest is textbook-style content written for the demo. It is **not
clinically validated** and every record says ``synthetic: true``. Enumerated items are
separated by ``|`` below.

An empty value is the explicit "none" (无) of the KB format, and it is a reference a model is
graded against: it stands only where "none" is the clinically true answer. Those places are
declared in :data:`NONE`, each with its reason, and only on the aspects of :data:`MAY_BE_NONE`
(an aspect a disease can lack: an exclusive onset age, a drug, an operation, an abnormal test);
a test checks that every empty value is declared and every declared one is empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clineval.benchmarks.meddisk.kb import FORMAT, VERSION
from clineval.io import write_jsonl

ORDER = (
    "patient_population", "prevalence_ages", "onset_ages", "primary_symptoms",
    "associated_symptoms", "differential_symptoms", "physical_examinations", "anatomical_sites",
    "affected_sites", "affected_body_systems", "treatment_principles", "secondary_diseases",
    "medications", "surgical_procedures", "laboratory_examinations", "auxiliary_examinations",
    "departments", "severity_level",
)
DECLARATIVE = {"prevalence_ages", "onset_ages", "treatment_principles"}
#: The aspects where "none" can be a true clinical answer: Onset Ages is "the ages at which the
#: disease occurs exclusively" (Table 1), none for a disease of any age; a disease may have no
#: drug treatment, no operation, no abnormal laboratory or auxiliary finding. Every disease has
#: a population, ages it is common at, symptoms, signs, sites, systems, a treatment principle,
#: complications, departments and a severity, so those are never none here.
MAY_BE_NONE = frozenset({"onset_ages", "medications", "surgical_procedures",
                         "laboratory_examinations", "auxiliary_examinations"})
#: Where the demo KB says "none" (both languages), and why that is true.
NONE: dict[str, dict[str, str]] = {
    "D001": {"medications": "treated by surgery and optical correction; no drug clears the lens",
             "laboratory_examinations": "isolated congenital cataract has no laboratory "
                                        "abnormality"},
    "D002": {"surgical_procedures": "treated with drugs; no operation treats it"},
    "D003": {"onset_ages": "occurs at any age",
             "surgical_procedures": "self-limiting; never treated by surgery",
             "auxiliary_examinations": "diagnosed clinically; imaging is normal"},
    "D004": {"onset_ages": "occurs at any age",
             "surgical_procedures": "treated by iron replacement and the cause's treatment",
             "auxiliary_examinations": "its abnormal findings are laboratory ones"},
    "D005": {"onset_ages": "occurs at any age, though mostly at 10 to 30 years"},
    "D006": {"onset_ages": "occurs at any age, children included, though mostly over 40"},
    "D007": {"onset_ages": "occurs at any age",
             "surgical_procedures": "treated medically (drainage is for its complications)"},
    "D008": {"onset_ages": "occurs at any adult age, though mostly over 50"},
}

# id, ICD-10, role, (zh name, en name), then the 17 text aspects as (zh, en) and the severity.
_DISEASES: list[tuple[Any, ...]] = [
    ("D001", "Q12.0", "demo", ("先天性核性白内障", "congenital nuclear cataract"), [
        ("婴幼儿", "infants"), ("出生时即有", "present at birth"), ("出生时", "at birth"),
        ("白瞳症|视力低下|斜视", "leukocoria|poor vision|strabismus"),
        ("眼球震颤", "nystagmus"), ("瞳孔区白色混浊", "white opacity in the pupil"),
        ("红光反射消失", "absent red reflex"), ("晶状体", "lens"), ("晶状体核", "lens nucleus"),
        ("视觉系统", "visual system"), ("尽早手术摘除混浊晶状体并矫正视力",
                                    "early removal of the cloudy lens and correction of vision"),
        ("弱视|青光眼", "amblyopia|glaucoma"), ("", ""),
        ("白内障摘除术|人工晶状体植入术", "cataract extraction|intraocular lens implantation"),
        ("", ""), ("晶状体裂隙灯检查（晶状体浑浊）", "slit-lamp examination (lens opacity)"),
        ("眼科", "ophthalmology")], 2),
    ("D002", "E07.8", "demo", ("甲状腺激素抵抗综合征", "thyroid hormone resistance syndrome"), [
        ("儿童|青少年", "children|adolescents"), ("儿童期多见", "mostly in childhood"),
        ("出生时即存在", "present from birth"),
        ("甲状腺肿大|水肿|乏力|心动过缓", "goitre|oedema|fatigue|bradycardia"),
        ("多动|学习困难", "hyperactivity|learning difficulties"),
        ("甲状腺激素升高而促甲状腺激素不被抑制", "high thyroid hormones with unsuppressed TSH"),
        ("甲状腺弥漫性肿大", "diffuse thyroid enlargement"), ("甲状腺", "thyroid"),
        ("甲状腺|心脏", "thyroid|heart"), ("内分泌系统", "endocrine system"),
        ("以对症治疗为主，必要时调整甲状腺激素", "mainly symptomatic, adjusting thyroid hormone "
                                        "when needed"),
        ("心律失常", "arrhythmia"), ("β受体阻滞剂|三碘甲腺乙酸", "beta blockers|triac"),
        ("", ""), ("血清游离甲状腺素升高|促甲状腺激素正常或升高",
                   "raised free thyroxine|normal or raised TSH"),
        ("甲状腺超声（弥漫性肿大）", "thyroid ultrasound (diffuse enlargement)"),
        ("内分泌科", "endocrinology")], 1),
    ("D003", "J06.9", "demo", ("急性上呼吸道感染", "acute upper respiratory tract infection"), [
        ("儿童|老年人|免疫力低下者", "children|elderly people|immunocompromised people"),
        ("各年龄均可发病，儿童多见", "all ages, most common in children"), ("", ""),
        ("咳嗽|打喷嚏|流鼻涕", "cough|sneezing|runny nose"),
        ("发热|咽痛|头痛", "fever|sore throat|headache"), ("鼻塞", "nasal congestion"),
        ("咽部充血", "pharyngeal congestion"), ("鼻|咽|喉", "nose|pharynx|larynx"),
        ("上呼吸道", "upper airway"), ("呼吸系统", "respiratory system"),
        ("休息、多饮水并对症治疗", "rest, fluids and symptomatic treatment"),
        ("中耳炎|鼻窦炎", "otitis media|sinusitis"), ("对乙酰氨基酚", "paracetamol"), ("", ""),
        ("白细胞计数正常或偏低", "normal or low white cell count"), ("", ""),
        ("呼吸内科|全科", "respiratory medicine|general practice")], 1),
    ("D004", "D50.9", "demo", ("缺铁性贫血", "iron-deficiency anaemia"), [
        ("育龄女性|婴幼儿|孕妇", "women of childbearing age|infants|pregnant women"),
        ("育龄期和婴幼儿期多见", "mostly childbearing age and infancy"), ("", ""),
        ("乏力|面色苍白|头晕", "fatigue|pallor|dizziness"), ("心悸|气短", "palpitations|"
                                                                  "shortness of breath"),
        ("异食癖|匙状甲", "pica|spoon nails"), ("皮肤黏膜苍白", "pale skin and mucosa"),
        ("血液", "blood"), ("骨髓|皮肤黏膜", "bone marrow|skin and mucosa"),
        ("血液系统", "haematological system"),
        ("去除病因并补充铁剂", "remove the cause and replace iron"),
        ("心力衰竭", "heart failure"), ("硫酸亚铁|蔗糖铁", "ferrous sulfate|iron sucrose"),
        ("", ""), ("血红蛋白降低|血清铁蛋白降低", "low haemoglobin|low serum ferritin"),
        ("", ""), ("血液科", "haematology")], 2),
    ("D005", "K35.8", "demo", ("急性阑尾炎", "acute appendicitis"), [
        ("青少年|青年人", "adolescents|young adults"), ("10至30岁多见", "mostly 10 to 30 years"),
        ("", ""), ("转移性右下腹痛|恶心|呕吐", "migratory right lower abdominal pain|nausea|"
                                         "vomiting"),
        ("发热|食欲减退", "fever|loss of appetite"), ("麦氏点压痛", "McBurney point tenderness"),
        ("右下腹压痛|反跳痛", "right lower quadrant tenderness|rebound tenderness"),
        ("阑尾", "appendix"), ("阑尾|腹膜", "appendix|peritoneum"),
        ("消化系统", "digestive system"), ("尽早手术切除阑尾", "early surgical removal of the "
                                                      "appendix"),
        ("阑尾穿孔|腹膜炎", "appendiceal perforation|peritonitis"),
        ("头孢曲松|甲硝唑", "ceftriaxone|metronidazole"), ("阑尾切除术", "appendectomy"),
        ("白细胞计数升高", "raised white cell count"),
        ("腹部超声（阑尾增粗）", "abdominal ultrasound (enlarged appendix)"),
        ("普外科", "general surgery")], 2),
    ("D006", "E11.9", "test", ("2型糖尿病", "type 2 diabetes"), [
        ("中老年人|肥胖者", "middle-aged and older people|people with obesity"),
        ("40岁以上多见", "mostly over 40 years"), ("", ""),
        ("多饮|多尿|体重下降", "polydipsia|polyuria|weight loss"),
        ("乏力|视物模糊", "fatigue|blurred vision"),
        ("起病隐匿|黑棘皮病", "insidious onset|acanthosis nigricans"),
        ("腹型肥胖|足部感觉减退", "central obesity|reduced foot sensation"),
        ("胰腺", "pancreas"), ("血管|肾脏|视网膜", "blood vessels|kidneys|retina"),
        ("内分泌系统", "endocrine system"),
        ("控制饮食、规律运动并药物控制血糖", "diet, regular exercise and drugs to control "
                                            "blood glucose"),
        ("糖尿病肾病|糖尿病视网膜病变", "diabetic nephropathy|diabetic retinopathy"),
        ("二甲双胍|胰岛素", "metformin|insulin"), ("代谢手术", "metabolic surgery"),
        ("空腹血糖升高|糖化血红蛋白升高", "raised fasting glucose|raised HbA1c"),
        ("眼底检查（微血管瘤）", "fundoscopy (microaneurysms)"),
        ("内分泌科", "endocrinology")], 2),
    ("D007", "J18.9", "test", ("社区获得性肺炎", "community-acquired pneumonia"), [
        ("老年人|儿童", "elderly people|children"), ("各年龄均可发病，老年人多见",
                                                    "all ages, most common in the elderly"),
        ("", ""), ("发热|咳嗽|咳痰", "fever|cough|sputum"),
        ("胸痛|气促", "chest pain|breathlessness"),
        ("铁锈色痰|胸膜炎性胸痛", "rusty sputum|pleuritic chest pain"),
        ("肺部湿啰音", "crackles over the lung"), ("肺", "lung"), ("肺实质", "lung "
                                                                             "parenchyma"),
        ("呼吸系统", "respiratory system"), ("抗感染及支持治疗", "antibiotics and supportive care"),
        ("呼吸衰竭|脓毒症", "respiratory failure|sepsis"), ("阿莫西林|阿奇霉素",
                                                       "amoxicillin|azithromycin"),
        ("", ""), ("白细胞计数升高|C反应蛋白升高", "raised white cell count|raised C-reactive "
                                                    "protein"),
        ("胸部X线（肺部浸润影）", "chest X-ray (infiltrates)"),
        ("呼吸内科", "respiratory medicine")], 2),
    ("D008", "I21.0", "test", ("急性前壁心肌梗死", "acute anterior wall myocardial infarction"), [
        ("中老年男性|吸烟者", "middle-aged and older men|smokers"), ("50岁以上多见",
                                                                   "mostly over 50 years"),
        ("", ""), ("胸痛|出汗|呼吸困难", "chest pain|sweating|dyspnoea"),
        ("恶心|乏力", "nausea|fatigue"), ("持续胸痛不缓解", "persistent chest pain not relieved "
                                                       "by rest"),
        ("心率增快", "tachycardia"), ("心脏", "heart"), ("左心室前壁", "anterior left "
                                                             "ventricular wall"),
        ("循环系统", "circulatory system"),
        ("尽早再灌注并抗栓治疗", "early reperfusion and antithrombotic therapy"),
        ("心力衰竭|心律失常", "heart failure|arrhythmia"),
        ("阿司匹林|氯吡格雷", "aspirin|clopidogrel"),
        ("经皮冠状动脉介入治疗", "percutaneous coronary intervention"),
        ("肌钙蛋白升高", "raised troponin"),
        ("心电图（ST段抬高、T波倒置、Q波出现）", "ECG (ST elevation, T-wave inversion, Q waves)"),
        ("心内科", "cardiology")], 3),
]


def _value(aspect: str, text: str) -> list[str] | str:
    if aspect in DECLARATIVE:
        return text
    return [item for item in text.split("|") if item]


def demo_records() -> list[dict[str, Any]]:
    """The demo KB's lines: the format header, then one record per disease."""
    records: list[dict[str, Any]] = [{"format": FORMAT, "version": VERSION}]
    for ident, icd10, role, (zh, en), values, severity in _DISEASES:
        aspects: dict[str, Any] = {
            key: {"zh": _value(key, z), "en": _value(key, e)}
            for key, (z, e) in zip(ORDER[:-1], values, strict=True)
        }
        aspects["severity_level"] = severity
        records.append({"id": ident, "name": {"zh": zh, "en": en}, "role": role,
                        "icd10": icd10, "synthetic": True, "aspects": aspects})
    return records


def write_demo_kb(path: Path) -> None:
    """Write the synthetic demo KB (deterministic) to ``path``."""
    write_jsonl(path, demo_records())
