// The explorer's grading panel (clineval.report.grades): on a cell's page a reader grades each
// example's verdict under the reading shown (agree or disagree, the verdict they would give, a
// note). Grades are kept in the browser (localStorage, per page) and saved as a grades file,
// one JSON line per grade, for `clineval agreement`. Text is set with textContent only.
(() => {
const data = JSON.parse(document.getElementById('data').textContent);
const grading = data.grading;
if (!grading) return;
const VERDICTS = ['right', 'wrong', 'unanswered', 'scored'];
const STORE = 'clineval.grades:' + location.pathname;
const GRADER = 'clineval.grader';
const list = document.getElementById('examples');
const viewSelect = document.getElementById('view');
const byId = new Map(data.examples.map(ex => [ex.id, ex]));
let panels = 0;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function load() {
  try { return JSON.parse(localStorage.getItem(STORE) || '{}') || {}; } catch (e) { return {}; }
}
let grades = load();
function reading() { return viewSelect ? viewSelect.value : data.views[0]; }
function scorer(ex, name) {
  const judgements = ex.sides[0].judgements;
  return (judgements.find(j => j.name === name) || judgements[0]).verdict;
}
function key(id, name) { return JSON.stringify([id, name]); }

const bar = el('div', null);
bar.id = 'grading';
const graderLabel = el('label', null, 'Grader ');
const graderInput = el('input');
graderInput.id = 'grader';
graderInput.value = localStorage.getItem(GRADER) || '';
graderInput.addEventListener('change', () => {
  localStorage.setItem(GRADER, graderInput.value.trim());
});
graderLabel.appendChild(graderInput);
const count = el('span', 'count');
const save = el('button', null, 'Save grades (.jsonl)');
save.type = 'button';
save.id = 'save-grades';
const clear = el('button', null, 'Clear grades');
clear.type = 'button';
clear.id = 'clear-grades';
bar.append(el('strong', null, 'Grading: '), graderLabel, ' ', count, ' ', save, ' ', clear);
const style = el('style', null,
  '#grading{margin:.6rem 0;font-size:.9rem}#grading .count{margin:0 .6rem}' +
  'fieldset.grade{border:1px dashed #8c959f;border-radius:4px;margin:.5rem 0;padding:.3rem .6rem;' +
  'font-size:.85rem}fieldset.grade label{margin-right:.8rem}fieldset.grade .kept{color:#1a7f37}');
document.head.appendChild(style);
list.parentNode.insertBefore(bar, document.querySelector('.pager'));

function updateBar() {
  const n = Object.keys(grades).length;
  count.textContent = `${n} grade${n === 1 ? '' : 's'} kept in this browser for this page`;
  save.disabled = clear.disabled = n === 0;
}
function persist() {
  localStorage.setItem(STORE, JSON.stringify(grades));
  updateBar();
}
function graderName() {
  let name = graderInput.value.trim();
  if (!name) {
    name = (window.prompt('Your name as a grader (kept with each grade):') || '').trim();
    graderInput.value = name;
    if (name) localStorage.setItem(GRADER, name);
  }
  return name;
}

function panel(article, ex) {
  const name = reading();
  const verdict = scorer(ex, name);
  const kept = grades[key(ex.id, name)];
  const box = el('fieldset', 'grade');
  box.appendChild(el('legend', null, `Your grade of the verdict under reading ${name} (scorer: ${verdict})`));
  const group = `grade-${panels++}`;
  const choice = {};
  for (const [value, text] of [['agree', 'agree'], ['disagree', 'disagree']]) {
    const label = el('label');
    const input = el('input');
    input.type = 'radio';
    input.name = group;
    input.value = value;
    choice[value] = input;
    label.append(input, ' ' + text);
    box.appendChild(label);
  }
  const verdictLabel = el('label', null, 'verdict ');
  const select = el('select');
  for (const v of VERDICTS) {
    const option = el('option', null, v);
    option.value = v;
    select.appendChild(option);
  }
  verdictLabel.appendChild(select);
  const noteLabel = el('label', null, 'note ');
  const note = el('input');
  note.type = 'text';
  note.size = 40;
  noteLabel.appendChild(note);
  const status = el('span', 'kept');
  box.append(verdictLabel, noteLabel, status);
  select.value = kept ? kept.verdict : verdict;
  note.value = kept ? kept.note : '';
  if (kept) choice[kept.agree ? 'agree' : 'disagree'].checked = true;
  select.disabled = !kept || kept.agree;
  status.textContent = kept ? `kept (${kept.grader})` : '';

  function store() {
    const agree = choice.agree.checked;
    if (!agree && !choice.disagree.checked) return;
    const grader = graderName();
    if (!grader) {
      status.textContent = 'not kept: no grader name';
      return;
    }
    if (agree) select.value = verdict;
    else if (select.value === verdict) select.value = VERDICTS.find(v => v !== verdict);
    select.disabled = agree;
    grades[key(ex.id, name)] = {
      model: grading.model, task: grading.task, mode: grading.mode, id: ex.id,
      output_sha256: ex.output_sha256, scoring: grading.scoring, reading: name, grader,
      agree: select.value === verdict, verdict: select.value, note: note.value,
    };
    persist();
    status.textContent = `kept (${grader})`;
  }
  choice.agree.addEventListener('change', store);
  choice.disagree.addEventListener('change', store);
  select.addEventListener('change', store);
  note.addEventListener('change', store);
  article.appendChild(box);
}

function decorate() {
  for (const article of list.querySelectorAll('article')) {
    if (article.querySelector('fieldset.grade')) continue;
    const raw = article.dataset.example || article.id.replace(/^example-/, '');
    let ex = byId.get(raw);
    if (!ex) { try { ex = byId.get(decodeURIComponent(raw)); } catch (e) { ex = undefined; } }
    if (ex) panel(article, ex);
  }
}

save.addEventListener('click', () => {
  const lines = Object.values(grades).map(g => JSON.stringify(g));
  const blob = new Blob([lines.join('\n') + '\n'], {type: 'application/x-ndjson'});
  const link = el('a');
  link.href = URL.createObjectURL(blob);
  link.download = `grades-${grading.model}-${grading.task}-${grading.mode}.jsonl`.replace(/[^\w.-]+/g, '_');
  document.body.appendChild(link);
  link.click();
  link.remove();
});
clear.addEventListener('click', () => {
  if (!window.confirm('Forget every grade of this page kept in this browser?')) return;
  grades = {};
  persist();
  for (const box of list.querySelectorAll('fieldset.grade')) box.remove();
  decorate();
});

new MutationObserver(decorate).observe(list, {childList: true});
decorate();
updateBar();
})();
