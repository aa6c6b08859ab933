"""Which items of an answer are the model's decisions (docs/clibench.md, "Copied text, the
similarity floor and readings").

The paper (§3.5) maps the model's *decisions* to codes: each item of a natural-language answer
goes to its most similar code title. An item that restates the prompt decides nothing, so the
careful reading maps no code to it; the paper's literal reading maps every item. An item is no
decision when, in this order:

1. ``heading``: it is a heading: a section title of the prompt (a segment header such as
   ``[MEDICAL RECORD AT ADMISSION]`` or a heading of the record such as ``Chief Complaint:``,
   ``FINDINGS:``) or a heading of the answer itself (a line that ends with ``:``, which the
   item splitter drops, repeated without its colon), or, as the answer's last line, the
   opening of such a heading (cut off at ``max_tokens``);
2. ``instruction``: at least half its words lie in runs of at least
   :data:`~clineval.metrics.copying.RUN` words copied from the instruction (the system message,
   the question and the answer format);
3. ``record``: it is a whole line or sentence of the case as the prompt shows it (profile,
   previous diagnoses, record, radiology, labs) or of an exemplar's case, with or without the
   line's heading (``INDICATION:  Fever and cough.``, ``Penicillins`` from the allergies, ``No
   consolidation`` from the findings), or at least
   half its words lie in such runs copied from them; except from the record's own lists of the
   task's decisions (diagnoses: the previous admission's diagnoses and the past medical history;
   prescriptions: the medications on admission), because naming an inherited diagnosis or
   continuing a home medication is a decision;
4. ``allergy`` (prescriptions): in an answer that copies the record's allergy line (one of
   its items is that line or one of its entries, as rule 3 finds it), an item that names only
   that entry's substance: each of its words is a word of the entry, singular or plural
   ("Sulfonamides" after "Sulfa (Sulfonamide Antibiotics)"). It restates the allergy, which
   forbids the drug; a drug named without the copied line stays a decision (rule 3's reason:
   a name alone cannot tell a copy from a decision);
5. ``exemplar``: the answer copies an exemplar's answer (at least half its items are entries of
   it, or codes written as one of its entries with a few characters changed: ``N02AB01`` for
   ``N02AA03``, see :func:`_copied_entry`) and the item is one of those entries;
6. ``fragment``: it names nothing: no letter in it and no explicit code (``-``, ``6``, a list
   number cut off at ``max_tokens``), or, as the answer's last line, it is the opening of an item
   the answer repeats (``Hyp`` after "Hypoglycemia" many times: a repetition cut off at
   ``max_tokens``).

The answer's last line, when cut off (it is the opening of a heading of the answer, of a line
or sentence of the record, or of an item the answer repeats), counts as that heading (rule 1),
that line (rule 3) or a fragment (rule 6).

Items shorter than a run (a code, a drug name) are copies by rule 3 only as whole lines or
sentences: their words alone cannot tell a copy from a decision. Each rule needs only what the
prompt showed; without the prompt (``clineval score`` on outside outputs) only the answer's own
headings are known.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clineval.io import Record
from clineval.metrics import copying
from clineval.metrics.code_mapping import normalize_title
from clineval.mimic import sections

#: The rules in the order they are tried (a dropped item's ``why`` names one).
RULES = ("heading", "instruction", "record", "allergy", "exemplar", "fragment")
#: Case segments in prompt order (the example's fields).
CASE_FIELDS = ("profile", "history")
#: The record's own lists of a task's decisions: sections whose entries are kept as decisions.
DECISION_SECTIONS = {"diagnoses": ("Past Medical History",),
                     "prescriptions": ("Medications on Admission",)}
#: The tasks whose answers the ``allergy`` rule reads.
ALLERGY_KINDS = ("prescriptions",)
_ALLERGIES = re.compile(r"^[ \t]*Allergies[ \t]*:[ \t]*(.*?)(?=\n[ \t]*\n|\Z)",
                        re.I | re.M | re.S)
#: An allergy line that says there is none (MIMIC's "No Known Allergies / Adverse Drug
#: Reactions"): no allergen.
_NO_ALLERGY = re.compile(r"\bno known allergies\b", re.I)
#: A code-like item (one word with a digit) that differs from an exemplar's entry of the same
#: length and first character in at most this many characters, and in at most a third of them,
#: is a garbled copy of it (for the ``exemplar`` rule's test of whether the answer copies the
#: exemplar's answer).
NEAR_CODE = 2
_CODE_LIKE = re.compile(r"^(?=\S*\d)[\w.-]+$")
_LETTER = re.compile(r"[^\W\d_]")
_SENTENCE_END = re.compile(r"(?<=[.;])\s+")
_HEADER = re.compile(r"^\s*\[([^\]\n]+)\]\s*$", re.M)
_HEADING_LINE = re.compile(r"^[ \t]*([A-Za-z][A-Za-z /&()'-]{1,60}?)[ \t]*:", re.M)
#: Headings of discharge summaries and radiology reports (a ``Name:`` line of the record is a
#: title when it is one of these or written in capitals, as ``ADMISSION PHYSICAL EXAM:``).
_KNOWN = {normalize_title(h) for h in (*sections.DISCHARGE_HEADINGS,
                                       *sections.RADIOLOGY_HEADINGS)}
_ANSWER_HEADING = re.compile(
    r"^\s*(?:[-*•·]\s+|\(?\d{1,3}[.):]\s*)?\**\s*(.+?)\s*\**\s*:\s*\**\s*$", re.M)


@dataclass(frozen=True)
class Shown:
    """What the prompt showed around one example: the case's texts as rendered (``case``), the
    parts of them that list decisions of the task (``decision_lists``), the lines of the
    record's allergy section (``allergies``: prescriptions), exemplars' case texts and answers,
    the instruction's texts and the prompt's section titles."""

    case: tuple[str, ...] = ()
    decision_lists: tuple[str, ...] = ()
    allergies: tuple[str, ...] = ()
    exemplar_inputs: tuple[str, ...] = ()
    exemplar_answers: tuple[str, ...] = ()
    instruction: tuple[str, ...] = ()
    titles: frozenset[str] = frozenset()


def _kept_prefix(text: str, user: str) -> str:
    """The longest opening of ``text`` that ``user`` holds (a truncated segment keeps its
    opening); empty when not even its first characters are there."""
    if not text or text[:40] not in user:
        return ""
    if text in user:
        return text
    low, high = 40, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if text[:middle] in user:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def case_texts(example: Record, user: str | None = None) -> list[str]:
    """The example's case as the final user message ``user`` shows it: profile, previous
    diagnoses, record, radiology and labs, each as much of it as the (possibly truncated)
    prompt kept; without ``user``, the example's texts whole."""
    texts = [example.get(name) or "" for name in CASE_FIELDS]
    segments = example.get("segments") or {}
    texts += [segments.get(name) or "" for name in ("record", "radiology", "labs")]
    if user is None:
        return [t for t in texts if t]
    return [kept for kept in (_kept_prefix(t, user) for t in texts) if kept]


def decision_lists(kind: str, example: Record, texts: Sequence[str]) -> list[str]:
    """The parts of the case that list decisions of ``kind``: the previous admission's
    diagnoses and the past medical history (diagnoses), the medications on admission
    (prescriptions)."""
    found = []
    if kind == "diagnoses" and example.get("history"):
        found += [t for t in texts if t and t in example["history"]]
    for name in DECISION_SECTIONS.get(kind, ()):
        pattern = re.compile(rf"^[ \t]*{re.escape(name)}[ \t]*:[^\n]*\n(.*?)(?=\n[ \t]*\n|\Z)",
                             re.I | re.M | re.S)
        for text in texts:
            found += [m.group(1) for m in pattern.finditer(text) if m.group(1).strip()]
    return found


def allergies(kind: str, texts: Sequence[str]) -> list[str]:
    """The lines of the record's allergy section (``Allergies:``) for a task the ``allergy``
    rule reads, without a line that says there is none."""
    if kind not in ALLERGY_KINDS:
        return []
    return [line.strip() for text in texts for section in _ALLERGIES.findall(text)
            for line in section.splitlines() if line.strip() and not _NO_ALLERGY.search(line)]


def _titles(texts: Sequence[str]) -> set[str]:
    """Section titles in ``texts``: ``[HEADER]`` lines and ``Heading:`` line openings."""
    found = set()
    for text in texts:
        found |= {normalize_title(m) for m in _HEADER.findall(text)}
        found |= {normalize_title(m) for m in _HEADING_LINE.findall(text)
                  if m.isupper() or normalize_title(m) in _KNOWN}
    return {t for t in found if t}


def shown(kind: str, example: Record, messages: Sequence[Mapping[str, str]] | None) -> Shown:
    """What the prompt of ``messages`` showed of ``example`` (without ``messages``: the
    example's own texts, when it has them)."""
    if not messages:
        texts = case_texts(example)
        return Shown(case=tuple(texts),
                     decision_lists=tuple(decision_lists(kind, example, texts)),
                     allergies=tuple(allergies(kind, texts)),
                     titles=frozenset(_titles(texts)))
    prompt = copying.Prompt.of(messages)
    texts = case_texts(example, prompt.user)
    rest = prompt.user
    for text in texts:
        rest = rest.replace(text, "\n")
    return Shown(
        case=tuple(texts), decision_lists=tuple(decision_lists(kind, example, texts)),
        allergies=tuple(allergies(kind, texts)), exemplar_inputs=prompt.exemplar_inputs,
        exemplar_answers=prompt.exemplar_answers,
        instruction=(prompt.system, rest),
        titles=frozenset(_titles([prompt.user, *prompt.exemplar_inputs])))


def answer_headings(output: str) -> set[str]:
    """The headings of an answer: its lines that end with ``:`` (normalised)."""
    return {normalize_title(m) for m in _ANSWER_HEADING.findall(output)} - {""}


def _share(item: str, sources: Sequence[str]) -> float:
    """The share of the item's words in runs of at least RUN words found in ``sources`` (0 for
    an item shorter than a run)."""
    words = copying.words(item)
    if len(words) < copying.RUN or not any(sources):
        return 0.0
    marks = copying.copied_words(words, [s for s in sources if s], copying.RUN)
    return sum(marks) / len(words)


def _without(texts: Sequence[str], parts: Sequence[str]) -> list[str]:
    """``texts`` with each of ``parts`` cut out (a line break in its place, so no run crosses
    it)."""
    out = []
    for text in texts:
        for part in parts:
            if part:
                text = text.replace(part, "\n")
        out.append(text)
    return out


def _unheaded(line: str) -> str:
    """``line`` without a leading ``Heading:`` (the text after the first colon, if the part
    before it is a short heading)."""
    head, colon, rest = line.partition(":")
    return rest if colon and 0 < len(head.split()) <= 6 and rest.strip() else line


def _folded(text: str) -> set[str]:
    """The words of ``text``, lower case, a plural ``s`` dropped (``sulfonamides``)."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w
            for w in re.findall(r"[a-z0-9]+", text.lower())}


def copied_allergens(items: Sequence[str], allergy_lines: Sequence[str]) -> list[str]:
    """The entries of the allergy lines (split at ``/``) that the answer copies: an item is the
    whole line or one of its entries, with or without a heading."""
    copied = []
    for line in allergy_lines:
        entries = [e.strip() for e in line.split("/") if e.strip()]
        for item in items:
            texts = {normalize_title(item), normalize_title(_unheaded(item))}
            if normalize_title(line) in texts:
                copied += entries
            copied += [e for e in entries if normalize_title(e) in texts]
    return list(dict.fromkeys(copied))


def _entries(answers: Sequence[str]) -> set[str]:
    from clineval.metrics.code_mapping import split_items

    return {normalize_title(entry) for answer in answers for entry in split_items(answer)}


def _copied_entry(text: str, entries: set[str]) -> bool:
    """Whether ``text`` (normalised) is one of ``entries``, or a code-like word that is one of
    them garbled: the same length and first character, at most :data:`NEAR_CODE` characters
    and a third of them changed (``n02ab01`` for ``n02aa03``; not ``j189`` for ``e119``)."""
    if text in entries:
        return True

    def near(entry: str) -> bool:
        if len(entry) != len(text) or entry[:1] != text[:1] or not _CODE_LIKE.match(entry):
            return False
        changed = sum(a != b for a, b in zip(entry, text, strict=True))
        return changed <= NEAR_CODE and 3 * changed <= len(text)

    return bool(_CODE_LIKE.match(text)) and any(near(entry) for entry in entries)


def judge(items: Sequence[str], output: str, seen: Shown,
          coded: Sequence[bool] | None = None) -> list[tuple[str, str] | None]:
    """Per item of ``output``: None (a decision) or ``(rule, why)``, the first of
    :data:`RULES` that finds it no decision. ``coded``: per item, whether it holds an explicit
    code of the task's system (such an item is never a fragment)."""
    coded = list(coded) if coded is not None else [False] * len(items)
    headings = answer_headings(output) | set(seen.titles)
    record = _without([*seen.case, *seen.exemplar_inputs], seen.decision_lists)
    lines = {normalize_title(part) for text in record for line in text.splitlines()
             for part in (line, _unheaded(line), *_SENTENCE_END.split(_unheaded(line)))}
    lines.discard("")
    last = output.rstrip().splitlines()[-1] if output.strip() else ""
    copied_answer = _entries(seen.exemplar_answers)
    copies_exemplar = bool(copied_answer) and 2 * sum(
        _copied_entry(normalize_title(item), copied_answer) for item in items) >= len(items)
    allergens = [_folded(entry) for entry in copied_allergens(items, seen.allergies)]
    counts = Counter(normalize_title(item) for item in items)
    repeated = {text for text, count in counts.items() if text and count >= 2}
    verdicts: list[tuple[str, str] | None] = []
    for item, has_code in zip(items, coded, strict=True):
        text = normalize_title(item)
        cut = len(text) >= 3 and last.rstrip().endswith(item)  # the answer's last line
        if text and (text in headings or (cut and any(h.startswith(text)
                                                      for h in answer_headings(output)))):
            verdicts.append(("heading", "a section title of the prompt or a heading of the "
                             "answer, not a decision"))
            continue
        share = _share(item, seen.instruction)
        if share >= copying.SHARE:
            verdicts.append(("instruction", f"{share:.0%} of its words copied from the "
                             "instruction"))
            continue
        if text and (text in lines or normalize_title(_unheaded(item)) in lines):
            verdicts.append(("record", "a whole line or sentence of the record the prompt "
                             "shows"))
            continue
        if cut and any(line.startswith(text) for line in lines):
            verdicts.append(("record", "the opening of a line of the record, cut off"))
            continue
        share = _share(item, record)
        if share >= copying.SHARE:
            verdicts.append(("record", f"{share:.0%} of its words copied from the record the "
                             "prompt shows"))
            continue
        words = _folded(item)
        if words and any(words <= allergen for allergen in allergens):
            verdicts.append(("allergy", "names only the allergen of the record's allergy line, "
                             "which the answer copies: the allergy restated, not an order"))
            continue
        if copies_exemplar and normalize_title(item) in copied_answer:
            verdicts.append(("exemplar", "an entry of the exemplar's answer, which the answer "
                             "copies"))
            continue
        if not has_code and not _LETTER.search(item):
            verdicts.append(("fragment", "names nothing (no letter, no code)"))
            continue
        if cut and not has_code and any(r != text and r.startswith(text) for r in repeated):
            verdicts.append(("fragment", "the opening of an item the answer repeats, cut off"))
            continue
        verdicts.append(None)
    return verdicts
