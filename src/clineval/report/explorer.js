// The explorer page's script (clineval.report.explorer): filters, pages and builds the
// examples from the page's JSON with textContent only; keeps its state in the address (a
// report value's link narrows it to a reading and part of the cell) and states the arithmetic
// of the examples chosen.
(() => {
const data = JSON.parse(document.getElementById('data').textContent);
const config = JSON.parse(document.getElementById('config').textContent);
const list = document.getElementById('examples');
const pagers = Array.from(document.querySelectorAll('.pager'));
const viewSelect = document.getElementById('view');
const search = document.getElementById('search');
const boxes = Array.from(document.querySelectorAll('#filters input[type=checkbox]'));
let page = 0;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (/[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]/.test(node.textContent)) node.lang = 'zh';
  return node;
}
function view() { return viewSelect ? viewSelect.value : data.views[0]; }
// The row fields a link may narrow the page to (a category, a domain group) and the narrowing
// now applied: {field: value}, from the URL.
const keyNames = new Set(data.examples.flatMap(ex => Object.keys(ex.keys || {})));
let where = {};
// The arithmetic a link asks for (docs/report.md, Addresses): measure (share; precision,
// recall or f1 pooled at the levels named; mean of a measure, by a key's groups).
let measure = null, level = null, of = null, by = null;
let target = null;
const prefixBox = prefixOption();
function prefixOption() {
  const label = el('label', null, ' ');
  const box = el('input');
  box.type = 'checkbox'; box.id = 'prefix';
  label.append(box, ' ids starting with it');
  search.closest('label').after(label);
  return box;
}
function inWhere(ex) {
  for (const [key, value] of Object.entries(where)) {
    if (!ex.keys || ex.keys[key] !== value) return false;
  }
  return true;
}
function idMatches(id, needle) {
  const own = id.toLowerCase();
  return prefixBox.checked ? own.startsWith(needle) : own === needle;
}
function shown() {
  const v = view(), needle = search.value.trim().toLowerCase();
  const wanted = {};
  for (const box of boxes) {
    if (box.checked) (wanted[box.dataset.group] = wanted[box.dataset.group] || []).push(box.value);
  }
  return data.examples.filter(ex => {
    const tags = ex.tags[v] || [];
    if (!inWhere(ex)) return false;
    if (needle && !idMatches(ex.id, needle)) return false;
    for (const group of config.groups) {
      const on = wanted[group.name] || [];
      if (group.kind === 'any' && !on.some(t => tags.includes(t))) return false;
      if (group.kind === 'all' && !on.every(t => tags.includes(t))) return false;
    }
    return true;
  });
}
function row(table, cells, cls) {
  const tr = el('tr', cls);
  for (const c of cells) tr.appendChild(el('td', null, c));
  table.appendChild(tr);
}
function sideNode(side, label) {
  const box = el('section', 'side');
  if (label) box.appendChild(el('h4', null, label));
  const finish = side.finish ? `finish: ${side.finish}` : 'finish: not known';
  const tokens = side.tokens !== null && side.tokens !== undefined ? `, ${side.tokens} tokens` : '';
  box.appendChild(el('div', 'role', `Output (${finish}${tokens})`));
  box.appendChild(el('pre', 'output', side.output));
  if (side.copied) {
    const share = Math.round(100 * (side.copied.share || 0));
    box.appendChild(el('div', 'role', `Copied from the prompt: ${side.copied.kind}, ${share}% of the output`));
  }
  const table = el('table', 'judgements');
  table.appendChild(el('caption', 'sr', `How the scorer read ${label || 'the output'}`));
  const head = el('tr');
  for (const h of ['Reading', 'Verdict', 'Read', 'Rule', 'Score']) head.appendChild(el('th', null, h));
  const thead = el('thead'); thead.appendChild(head); table.appendChild(thead);
  for (const j of side.judgements) {
    row(table, [j.name, j.verdict, j.read || '–', j.rule || '–', j.score || '–']);
    for (const [label, text] of j.details) row(table, ['', label, text, '', ''], 'detail');
  }
  box.appendChild(table);
  if (side.prompt) {
    const details = el('details', 'prompt');
    details.appendChild(el('summary', null, `Prompt as sent (${side.prompt.length} messages)`));
    for (const [role, index] of side.prompt) {
      details.appendChild(el('div', 'role', role));
      details.appendChild(el('pre', 'message', data.texts[index]));
    }
    box.appendChild(details);
  } else if (config.no_prompt) {
    box.appendChild(el('div', 'role', config.no_prompt));
  }
  return box;
}
function exampleNode(ex) {
  const node = el('article');
  node.id = 'example-' + ex.id;
  const title = el('h3', null, ex.id);
  for (const tag of ex.tags[view()] || []) {
    const flag = config.flags.includes(tag);
    title.appendChild(el('span', 'badge ' + (flag ? 'flag' : tag.replace(' ', '-')),
                         config.labels[tag] || tag));
  }
  title.appendChild(permalink(ex));
  node.appendChild(title);
  const dl = el('dl');
  const add = (term, text) => { dl.appendChild(el('dt', null, term)); dl.appendChild(el('dd', null, text)); };
  add('Gold', ex.gold || '–');
  for (const [label, text] of ex.details) add(label, text);
  node.appendChild(dl);
  const sides = el('div', 'sides');
  ex.sides.forEach((side, i) => sides.appendChild(sideNode(side, config.sides[i])));
  node.appendChild(sides);
  return node;
}
// The page's state in its URL (#view=robust&category=lab&verdict=right,wrong&q=…&page=2):
// what a report's value links to, and what a reader's address keeps.
function defaults(box) { return box.defaultChecked; }
function readState() {
  let hash = location.hash.slice(1);
  try { hash = decodeURIComponent(hash); } catch (e) { /* kept as written */ }
  const params = hash.startsWith('example-') ? new URLSearchParams({id: hash.slice(8)})
    : new URLSearchParams(location.hash.slice(1));
  if (viewSelect) {
    const wanted = params.get('view');
    viewSelect.value = data.views.includes(wanted) ? wanted : data.views[0];
  }
  for (const group of config.groups) {
    const listed = params.get(group.name.toLowerCase());
    const on = listed === null ? null : new Set(listed.split(',').filter(Boolean));
    for (const box of boxes.filter(b => b.dataset.group === group.name)) {
      box.checked = on === null ? defaults(box) : on.has(box.value);
    }
  }
  search.value = params.get('q') || '';
  prefixBox.checked = params.get('prefix') === '1';
  where = {};
  for (const [key, value] of params) if (keyNames.has(key)) where[key] = value;
  measure = params.get('measure');
  level = params.get('level'); of = params.get('of'); by = params.get('by');
  page = Math.max(0, (parseInt(params.get('page'), 10) || 1) - 1);
  target = params.get('id');
  if (target !== null) showTarget();
}
function showTarget() {
  // the example's page among those shown; where the filters hide it, the filters are reset
  let found = shown().findIndex(ex => ex.id === target);
  if (found < 0) {
    for (const box of boxes) box.checked = defaults(box);
    search.value = ''; where = {};
    found = shown().findIndex(ex => ex.id === target);
  }
  if (found >= 0) page = Math.floor(found / config.page_size);
}
function writeState() {
  const params = new URLSearchParams();
  if (viewSelect && view() !== data.views[0]) params.set('view', view());
  for (const [key, value] of Object.entries(where)) params.set(key, value);
  if (measure) params.set('measure', measure);
  for (const [name, value] of [['level', level], ['of', of], ['by', by]]) {
    if (measure && value) params.set(name, value);
  }
  for (const group of config.groups) {
    const mine = boxes.filter(b => b.dataset.group === group.name);
    if (mine.some(b => b.checked !== defaults(b))) {
      params.set(group.name.toLowerCase(), mine.filter(b => b.checked).map(b => b.value).join(','));
    }
  }
  if (search.value.trim()) params.set('q', search.value.trim());
  if (prefixBox.checked) params.set('prefix', '1');
  if (page > 0) params.set('page', String(page + 1));
  if (target !== null) params.set('id', target);
  const hash = params.toString();
  try {
    history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
  } catch (e) { /* a browser that refuses it keeps the address as it was */ }
}
function permalink(ex) {
  const params = new URLSearchParams();
  if (viewSelect && view() !== data.views[0]) params.set('view', view());
  params.set('id', ex.id);
  const link = el('a', 'permalink', 'link');
  link.href = '#' + params.toString();
  link.title = 'The address of this example';
  return link;
}
// The arithmetic of the value a link opened (or of the whole page): the examples of its
// reading and part, whatever the verdict filters, and what they give.
const arithmetic = el('p', 'arithmetic');
arithmetic.id = 'arithmetic';
if (pagers.length) pagers[0].before(arithmetic);
// An example's measures under a reading (its judgement of that name, else its first).
function measuresOf(ex, v) {
  const judgements = ex.sides[0].judgements;
  return (judgements.find(j => j.name === v) || judgements[0]).measures || null;
}
const ratio = (a, b) => b ? a / b : 0;
const fixed = x => x.toFixed(4);
// Precision, recall or F1 pooled at each level named (CliBench): the examples' true
// positives, predicted and gold codes summed per level, then the plain mean over the levels.
function pooledText(chosen, v) {
  const levels = (level || '').split(',').filter(Boolean);
  const counted = chosen.filter(ex => {
    const m = measuresOf(ex, v);
    return m && levels.length && levels.every(l => ('tp.' + l) in m);
  });
  const sums = {}, values = [], texts = [];
  for (const l of levels) {
    const s = {tp: 0, predicted: 0, gold: 0};
    for (const ex of counted) {
      const m = measuresOf(ex, v);
      for (const k of Object.keys(s)) s[k] += m[k + '.' + l];
    }
    const p = ratio(s.tp, s.predicted), r = ratio(s.tp, s.gold);
    const value = {precision: p, recall: r, f1: ratio(2 * p * r, p + r)}[measure];
    sums[l] = s; values.push(value);
    texts.push(`${l}: true positives ${s.tp} of ${s.predicted} predicted, ${s.gold} gold → ` +
      `P ${fixed(p)}, R ${fixed(r)}, F1 ${fixed(ratio(2 * p * r, p + r))}`);
  }
  arithmetic.dataset.n = String(counted.length);
  arithmetic.dataset.sums = JSON.stringify(sums);
  const name = measure === 'f1' ? 'F1' : measure;
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  arithmetic.dataset.value = String(mean);
  const each = texts.join('; ');
  return `n = ${counted.length} examples; ${name} pooled over them at ` +
    (levels.length === 1 ? `level ${each} → ${name} ${fixed(mean)}` :
     `each level (${each}); mean of the ${levels.length} levels' ${name} = ${fixed(mean)}`);
}
// A measure in words (MedDisK's: clineval.benchmarks.meddisk.reading.measures).
const TIER_WORDS = {cw: 'completely wrong', pc: 'partially correct', bc: 'basically correct'};
function measureWords(name) {
  if (name === 'points') return 'points (0-10)';
  if (TIER_WORDS[name]) return `the share of the metrics rated ${TIER_WORDS[name]}`;
  const [metric, tier] = name.split('.');
  if (TIER_WORDS[tier]) return `${metric} rated ${TIER_WORDS[tier]} (1 or 0)`;
  return `${name} similarity`;
}
// The mean of a measure over the examples (by: the mean of each group's mean).
function meanText(chosen, v) {
  const counted = chosen.filter(ex => { const m = measuresOf(ex, v); return m && of in m; });
  const sums = {};
  for (const ex of counted) {
    const group = by ? ((ex.keys || {})[by] || '') : '';
    const s = sums[group] = sums[group] || {sum: 0, n: 0};
    s.sum += measuresOf(ex, v)[of]; s.n += 1;
  }
  const groups = Object.keys(sums);
  const means = groups.map(g => sums[g].sum / sums[g].n);
  const mean = means.reduce((a, b) => a + b, 0) / (means.length || 1);
  arithmetic.dataset.n = String(counted.length);
  arithmetic.dataset.sums = JSON.stringify(sums);
  arithmetic.dataset.value = String(mean);
  const one = s => `sum ${+s.sum.toFixed(4)} / ${s.n} = ${fixed(s.sum / s.n)}`;
  const what = measureWords(of);
  if (!by) return `mean of ${what} over n = ${counted.length} examples: ${one(sums[''] || {sum: 0, n: 0})}`;
  return `mean of ${what} in each ${by} (${groups.map(g => `${g}: ${one(sums[g])}`).join('; ')}); ` +
    `mean of the ${groups.length} means = ${fixed(mean)} (n = ${counted.length} examples)`;
}
function arithmeticText() {
  const v = view();
  const chosen = data.examples.filter(inWhere);
  const count = tag => chosen.filter(ex => (ex.tags[v] || [])[0] === tag).length;
  const n = chosen.length, right = count('right'), scored = count('scored');
  const part = Object.entries(where).map(([k, value]) => `${k} ${value}`).join(', ');
  const head = (data.views.length > 1 ? `${v} reading` : 'all readings') +
    (part ? `, ${part} only` : '') + ': ';
  arithmetic.dataset.n = String(n);
  arithmetic.dataset.right = String(right);
  arithmetic.dataset.view = v;
  arithmetic.dataset.where = JSON.stringify(where);
  delete arithmetic.dataset.sums; delete arithmetic.dataset.value;
  if (data.tests !== undefined) {  // a pair page: its examples differ; no value of the tables
    arithmetic.textContent = head + `n = ${n} examples where the outcomes differ`;
  } else if (!n) {
    arithmetic.textContent = head + 'n = 0 examples';
  } else if (['precision', 'recall', 'f1'].includes(measure)) {
    arithmetic.textContent = head + pooledText(chosen, v);
  } else if (measure === 'mean' && of) {
    arithmetic.textContent = head + meanText(chosen, v);
  } else if (scored) {
    arithmetic.textContent = head + `n = ${n} examples, ${scored} graded on a scale ` +
      '(the value is computed from each one\'s score)';
  } else if (measure === 'share') {  // the value linked to is the share of right ones
    const share = right / n;
    arithmetic.textContent = head + `right ${right} of n = ${n} examples → ` +
      `${(100 * share).toFixed(2)}% (${share.toFixed(4)})`;
  } else {
    arithmetic.textContent = head + `right ${right} of n = ${n} examples, ` +
      `wrong ${count('wrong')}, unanswered ${count('unanswered')}`;
  }
  if (part) {
    const whole = el('button', 'whole', 'all examples of the cell');
    whole.type = 'button';
    whole.addEventListener('click', () => changed(() => { where = {}; page = 0; }));
    arithmetic.append(' ', whole);
  }
}
function narrowedCounts() {
  const v = view(), found = {};
  for (const ex of data.examples.filter(inWhere)) {
    for (const tag of ex.tags[v] || []) found[tag] = (found[tag] || 0) + 1;
  }
  return found;
}
function render() {
  const found = shown();
  const pages = Math.max(1, Math.ceil(found.length / config.page_size));
  page = Math.min(page, pages - 1);
  list.replaceChildren(...found.slice(page * config.page_size, (page + 1) * config.page_size).map(exampleNode));
  for (const pager of pagers) {
    pager.querySelector('.where').textContent =
      `${found.length} of ${data.examples.length} examples; page ${page + 1} of ${pages}`;
    pager.querySelector('.prev').disabled = page === 0;
    pager.querySelector('.next').disabled = page >= pages - 1;
  }
  const counts = Object.keys(where).length ? narrowedCounts() : data.counts[view()] || {};
  for (const box of boxes) box.nextElementSibling.textContent = ` ${config.labels[box.value] || box.value} (${counts[box.value] || 0})`;
  arithmeticText();
  writeState();
  if (target !== null) {
    const node = document.getElementById('example-' + target);
    if (node) { node.classList.add('target'); node.scrollIntoView({block: 'center'}); }
  }
}
function changed(move) {
  target = null;
  move();
  render();
}
for (const pager of pagers) {
  pager.querySelector('.prev').addEventListener('click', () => changed(() => { page -= 1; }));
  pager.querySelector('.next').addEventListener('click', () => changed(() => { page += 1; }));
}
for (const input of [...boxes, search, prefixBox, ...(viewSelect ? [viewSelect] : [])]) {
  input.addEventListener(input === search ? 'input' : 'change', () => changed(() => { page = 0; }));
}
window.addEventListener('hashchange', () => { readState(); render(); });
readState();
render();
performance.mark('explorer-ready');
document.body.dataset.ready = 'true';
})();
