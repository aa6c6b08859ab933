// The explorer page's script (clineval.report.explorer): filters, pages and builds the
// examples from the page's JSON with textContent only.
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
function shown() {
  const v = view(), needle = search.value.trim().toLowerCase();
  const wanted = {};
  for (const box of boxes) {
    if (box.checked) (wanted[box.dataset.group] = wanted[box.dataset.group] || []).push(box.value);
  }
  return data.examples.filter(ex => {
    const tags = ex.tags[v] || [];
    if (needle && !ex.id.toLowerCase().includes(needle)) return false;
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
  const counts = data.counts[view()] || {};
  for (const box of boxes) box.nextElementSibling.textContent = ` ${config.labels[box.value] || box.value} (${counts[box.value] || 0})`;
}
for (const pager of pagers) {
  pager.querySelector('.prev').addEventListener('click', () => { page -= 1; render(); });
  pager.querySelector('.next').addEventListener('click', () => { page += 1; render(); });
}
for (const input of [...boxes, search, ...(viewSelect ? [viewSelect] : [])]) {
  input.addEventListener(input === search ? 'input' : 'change', () => { page = 0; render(); });
}
render();
document.body.dataset.ready = 'true';
})();
