// The tabwright dashboard: human-input requests and running tasks, live over
// Server-Sent Events; a live view (screencast frames) that forwards clicks and
// keys to a headless task's page. Plain ES module, no dependencies.

const $ = (sel) => document.querySelector(sel);

// The person's language: Chinese when their browser asks for it (the HTTP door's users), else
// English. The page's fixed texts carry their Chinese in data-zh; the rest is chosen here with t().
const ZH = /^zh\b/i.test(navigator.language || '');
const t = (en, zh) => (ZH ? zh : en);
const STATUS_ZH = { pending: '等待中', partial: '部分已答', answered: '已回答', expired: '已过期' };
const statusWord = (s) => (ZH ? (STATUS_ZH[s] ?? s) : s);
const TITLE = t('tabwright — human help', 'tabwright — 人工协助');
if (ZH) {
  document.documentElement.lang = 'zh-CN';
  for (const el of document.querySelectorAll('[data-zh]')) el.textContent = el.dataset.zh;
  for (const el of document.querySelectorAll('[data-zh-label]'))
    el.setAttribute('aria-label', el.dataset.zhLabel);
  document.title = TITLE;
}
const requests = new Map();
let tasks = [];

/** Creates an element: h('div', {class: 'x'}, child, 'text'). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c);
  return el;
}

async function post(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

const open = (r) => r.status === 'pending' || r.status === 'partial';
const ago = (ms) => {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 60
    ? t(`${s}s ago`, `${s} 秒前`)
    : t(`${Math.round(s / 60)}min ago`, `${Math.round(s / 60)} 分钟前`);
};

function renderRequests() {
  const list = [...requests.values()].sort((a, b) => b.createdAt - a.createdAt);
  const pending = list.filter(open);
  const box = $('#requests');
  // Keep cards whose version did not change, so a half-typed answer survives other updates.
  const keep = new Map([...box.children].map((c) => [c.dataset.requestId, c]));
  box.replaceChildren(
    ...pending.map((r) => {
      const old = keep.get(r.requestId);
      if (old && old.dataset.sig === signature(r)) return old;
      return requestCard(r);
    }),
  );
  $('#req-count').textContent = String(pending.length);
  $('#req-empty').hidden = pending.length > 0;
  document.title = pending.length ? `(${pending.length}) ${TITLE}` : TITLE;
  $('#closed').replaceChildren(
    ...list
      .filter((r) => !open(r))
      .slice(0, 20)
      .map((r) =>
        h(
          'div',
          { class: 'item', 'data-request-id': r.requestId, 'data-status': r.status },
          `${r.requestId} · ${statusWord(r.status)}${r.markedDone ? t(' (done in browser)', '（已在浏览器里完成）') : ''} · ${r.prompt.split('\n')[0]}`,
        ),
      ),
  );
}

const signature = (r) => `${r.status}|${r.steps.map((s) => s.status).join(',')}`;

function requestCard(r) {
  const err = h('p', { class: 'error', role: 'alert' });
  const multi = r.steps.length > 1;
  const fields = [];
  const stepItems = r.steps.map((s) => {
    const li = h(
      'li',
      { class: s.status, 'data-step-id': s.stepId },
      s.header ? h('strong', {}, `${s.header}: `) : null,
      s.prompt,
      s.selector ? h('span', { class: 'meta' }, ` (${s.selector})`) : null,
      s.imageUrl
        ? h('img', {
            class: 'target',
            src: s.imageUrl,
            alt: t(`element for step ${s.stepId}`, `第 ${s.stepId} 步的元素`),
          })
        : null,
    );
    if (s.status === 'answered') return li;
    if (s.options?.length) {
      const name = `${r.requestId}-${s.stepId}`;
      const opts = h(
        'div',
        { class: 'options' },
        s.options.map((o) =>
          h(
            'label',
            { title: o.description ?? '' },
            h('input', { type: s.multiSelect ? 'checkbox' : 'radio', name, value: o.label }),
            o.label,
          ),
        ),
      );
      const other = h('input', {
        type: 'text',
        placeholder: t('Or type an answer', '或者输入回答'),
        'data-step': s.stepId,
      });
      li.append(opts, other);
      fields.push({ stepId: s.stepId, read: () => readOptions(opts, other, s.multiSelect) });
    } else if (multi || r.kind === 'ask_user') {
      const input = h('input', { type: 'text', 'data-step': s.stepId, 'aria-label': s.prompt });
      li.append(input);
      fields.push({ stepId: s.stepId, read: () => (input.value === '' ? undefined : input.value) });
    }
    return li;
  });
  let single;
  if (fields.length === 0) {
    single = h('input', {
      type: 'text',
      name: 'answer',
      'aria-label': t('Answer', '回答'),
      placeholder: t('Answer (optional)', '回答（可不填）'),
    });
  }
  const submit = async (done) => {
    err.textContent = '';
    const body = { requestId: r.requestId };
    if (done) body.done = true;
    else if (single) body.answer = single.value;
    else {
      const answers = {};
      for (const f of fields) {
        const v = f.read();
        if (v !== undefined) answers[f.stepId] = v;
      }
      if (Object.keys(answers).length === 0) {
        err.textContent = t(
          'Fill in at least one answer, or use "Done in browser".',
          '请至少填写一个回答，或者点「已在浏览器里完成」。',
        );
        return;
      }
      body.answers = answers;
    }
    const res = await post('/dashboard/api/answer', body);
    if (!res.ok) err.textContent = res.msg;
    else upsert(res.data);
  };
  const form = h(
    'form',
    {
      onsubmit: (e) => {
        e.preventDefault();
        void submit(false);
      },
    },
    single ? h('label', {}, t('Your answer', '你的回答'), single) : null,
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', class: 'primary' }, t('Send answer', '提交回答')),
      r.kind === 'request_human_input'
        ? h(
            'button',
            { type: 'button', onclick: () => void submit(true) },
            t('Done in browser', '已在浏览器里完成'),
          )
        : null,
      r.taskId && tasks.some((task) => task.id === r.taskId)
        ? h(
            'button',
            { type: 'button', onclick: () => openLive(r.taskId) },
            t('Open live view', '打开实时画面'),
          )
        : null,
    ),
    err,
  );
  return h(
    'article',
    { class: 'card request', 'data-request-id': r.requestId, 'data-sig': signature(r) },
    h(
      'div',
      { class: 'meta' },
      h('span', { class: `badge ${r.status}` }, statusWord(r.status)),
      ` ${r.requestId} · ${t('task', '任务')} ${r.taskId ?? '-'} · ${ago(r.createdAt)} · ${t('expires in', '剩余')} `,
      h('span', { class: 'expires', 'data-at': r.expiresAt }, ''),
    ),
    r.url ? h('div', { class: 'meta' }, r.url) : null,
    h('div', { class: 'prompt' }, r.prompt),
    r.imageUrl
      ? h('img', { class: 'target', src: r.imageUrl, alt: t('the element to look at', '要看的元素') })
      : null,
    stepItems.length > 1 || r.kind === 'ask_user' || fields.length
      ? h('ol', { class: 'steps' }, stepItems)
      : null,
    form,
  );
}

function readOptions(opts, other, multiSelect) {
  const picked = [...opts.querySelectorAll('input:checked')].map((i) => i.value);
  if (other.value !== '') return multiSelect ? [...picked, other.value] : other.value;
  if (picked.length === 0) return undefined;
  return multiSelect ? picked : picked[0];
}

function upsert(r) {
  requests.set(r.requestId, r);
  renderRequests();
}

function renderTasks() {
  $('#task-count').textContent = String(tasks.length);
  $('#tasks-empty').hidden = tasks.length > 0;
  const stamp = Date.now();
  $('#tasks').replaceChildren(
    ...tasks.map((task) =>
      h(
        'article',
        { class: 'card', 'data-task-id': task.id },
        h(
          'div',
          { class: 'meta' },
          `${t('task', '任务')} ${task.id} · ${task.headless ? t('headless', '无界面') : t('headed', '有界面')}${task.busy ? t(' · busy', ' · 执行中') : ''}`,
        ),
        h('div', { class: 'prompt' }, task.title || t('(no title)', '（无标题）')),
        h('div', { class: 'meta task-url' }, task.url ?? ''),
        task.ready
          ? h('img', {
              class: 'shot',
              alt: t(`screenshot of task ${task.id}`, `任务 ${task.id} 的截图`),
              src: `/dashboard/api/tasks/${task.id}/screenshot?t=${stamp}`,
            })
          : null,
        h(
          'div',
          { class: 'row' },
          h(
            'button',
            { type: 'button', class: task.headless ? 'primary' : '', onclick: () => openLive(task.id) },
            t('Live view', '实时画面'),
          ),
          !task.headless
            ? h(
                'button',
                { type: 'button', onclick: () => void post(`/dashboard/api/tasks/${task.id}/front`, {}) },
                t('Bring to front', '切到前台'),
              )
            : null,
        ),
      ),
    ),
  );
}

// Live view: frames over SSE, clicks and keys back over POST.
let live;
function openLive(taskId) {
  closeLive();
  const img = $('#live-img');
  const status = $('#live-status');
  $('#live').hidden = false;
  $('#live-task').textContent = `${t('task', '任务')} ${taskId}`;
  status.textContent = t('waiting for the first frame…', '正在等第一帧画面…');
  const es = new EventSource(`/dashboard/api/tasks/${taskId}/screencast`);
  const state = { taskId, es, width: 0, height: 0, frames: 0 };
  es.addEventListener('frame', (e) => {
    const f = JSON.parse(e.data);
    state.width = f.width;
    state.height = f.height;
    state.frames++;
    img.src = `data:image/jpeg;base64,${f.data}`;
    img.dataset.frames = String(state.frames);
    status.textContent = `${f.width}×${f.height} · ${t('live', '实时')}`;
  });
  es.addEventListener('failed', (e) => {
    status.textContent = `${t('live view failed', '实时画面失败')}: ${JSON.parse(e.data).msg}`;
    es.close();
  });
  live = state;
  document.getElementById('live-pad').focus();
  $('#live').scrollIntoView({ block: 'start' });
}

function closeLive() {
  if (live) live.es.close();
  live = undefined;
  $('#live').hidden = true;
}

const send = (body) => (live ? post(`/dashboard/api/tasks/${live.taskId}/input`, body) : Promise.resolve());
// Keys and text go out in order, one request at a time.
let queue = Promise.resolve();
const enqueue = (body) => {
  queue = queue.then(() => send(body)).catch(() => {});
};

function setupLive() {
  const img = $('#live-img');
  const pad = $('#live-pad');
  // Focusable so the person's keys reach the page (set here: the markup stays a plain container).
  pad.tabIndex = 0;
  img.addEventListener('click', (e) => {
    if (!live?.width) return;
    const rect = img.getBoundingClientRect();
    const x = ((e.clientX - rect.left) / rect.width) * live.width;
    const y = ((e.clientY - rect.top) / rect.height) * live.height;
    document.getElementById('live-pad').focus();
    enqueue({ type: 'click', x, y });
  });
  const named = new Set([
    'Enter',
    'Backspace',
    'Tab',
    'Escape',
    'Delete',
    'ArrowUp',
    'ArrowDown',
    'ArrowLeft',
    'ArrowRight',
    'Home',
    'End',
    'PageUp',
    'PageDown',
  ]);
  pad.addEventListener('keydown', (e) => {
    if (!live || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key.length === 1) enqueue({ type: 'text', text: e.key });
    else if (named.has(e.key)) enqueue({ type: 'key', key: e.key });
    else return;
    e.preventDefault();
  });
  pad.addEventListener('paste', (e) => {
    const text = e.clipboardData?.getData('text/plain');
    if (text) enqueue({ type: 'text', text });
    e.preventDefault();
  });
  $('#live-close').addEventListener('click', closeLive);
}

function tickExpiry() {
  for (const el of document.querySelectorAll('.expires')) {
    const s = Math.max(0, Math.round((Number(el.dataset.at) - Date.now()) / 1000));
    el.textContent = s >= 60 ? `${Math.floor(s / 60)}min ${s % 60}s` : `${s}s`;
  }
}

function connect() {
  const conn = $('#conn');
  const es = new EventSource('/dashboard/api/events');
  es.addEventListener('open', () => {
    conn.dataset.state = 'live';
    conn.textContent = t('live', '已连接');
  });
  es.addEventListener('error', () => {
    conn.dataset.state = 'lost';
    conn.textContent = t('reconnecting…', '正在重新连接…');
  });
  es.addEventListener('state', (e) => {
    const s = JSON.parse(e.data);
    requests.clear();
    for (const r of s.requests) requests.set(r.requestId, r);
    tasks = s.tasks;
    renderTasks();
    renderRequests();
  });
  es.addEventListener('request', (e) => upsert(JSON.parse(e.data).request));
  es.addEventListener('tasks', (e) => {
    tasks = JSON.parse(e.data);
    renderTasks();
  });
}

setupLive();
connect();
setInterval(tickExpiry, 1000);
// Screenshots of the tasks refresh every few seconds while the page is visible.
setInterval(() => {
  if (document.visibilityState === 'visible' && tasks.length) renderTasks();
}, 5000);
