// The live preview's page, frame, scripts and styles, served by server/preview/server.ts (plain ES2017, no build step).

export const PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Flow preview</title>
    <link rel="stylesheet" href="/preview/preview.css" />
  </head>
  <body class="page">
    <header class="bar">
      <strong>Flow preview</strong>
      <span id="summary" class="summary">Loading…</span>
      <span id="live" class="live" title="Reloads when a flow file changes">live</span>
    </header>
    <p class="note">Each flow as the real elements draw it, in light, dark and right-to-left. Buttons work here without
      writing anything; targeting and criteria are not evaluated, so every step shows. Edit a file and this page follows.</p>
    <section class="picker" aria-labelledby="picker-title">
      <h2 id="picker-title">Finding a selector</h2>
      <p>Drag <!--bookmarklet--> to your bookmarks bar. On a page of your app, click that bookmark, point at an element
        and click it: the picker copies a <code>selector: "…"</code> line for a tour step, with how many elements it
        matches. Escape closes it. It runs only where you click it; visitors never load it.
        <span id="picker-note" class="picker-note" aria-live="polite"></span></p>
    </section>
    <section id="errors" class="errors" aria-live="polite" hidden></section>
    <main id="flows" class="flows"></main>
    <script src="/preview/page.js"></script>
  </body>
</html>
`;

export const FRAME_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Flow</title>
    <link rel="stylesheet" href="/preview/preview.css" />
  </head>
  <body class="frame">
    <div id="stage"></div>
    <p id="finished" class="finished" hidden><span id="finished-text"></span> <button id="again" type="button">Show again</button></p>
    <pre id="data" class="data" hidden></pre>
    <script src="/preview/onboarding.js" data-auto-mount="false"></script>
    <script src="/preview/frame.js"></script>
  </body>
</html>
`;

export const PAGE_JS = String.raw`(function () {
  'use strict';
  var main = document.getElementById('flows');
  var errorsBox = document.getElementById('errors');
  var summary = document.getElementById('summary');
  var live = document.getElementById('live');
  var MODES = [['light', 'ltr', 'Light'], ['dark', 'ltr', 'Dark'], ['light', 'rtl', 'RTL']];
  // Room for what floats over the frame: a modal, or a tooltip beside its stand-in target.
  var MODAL_HEIGHT = { ANNOUNCEMENT: 460, TOUR: 440, SURVEY: 400, HINT: 360, TOOLTIP: 320 };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function plural(n, word) {
    return n + ' ' + word + (n === 1 ? '' : 's');
  }

  function frameUrl(flow, mode, key) {
    return '/preview/frame.html?slug=' + encodeURIComponent(flow.slug) + '&theme=' + mode[0] + '&dir=' + mode[1] + '&v=' + encodeURIComponent(key);
  }

  function build(flow, key) {
    var section = el('section', 'flow');
    section.id = 'flow-' + flow.slug;
    section.dataset.key = key;
    section.dataset.type = flow.type;
    var head = el('header', 'flow-head');
    var meta = [flow.file, 'v' + flow.version, plural(flow.data.steps.length, 'step')];
    if (flow.status !== 'ACTIVE') meta.push(flow.status);
    if (flow.targetingLogic) meta.push('for ' + flow.targetingLogic);
    var restart = el('button', 'restart', 'Restart');
    restart.type = 'button';
    head.append(el('h2', null, flow.name), el('span', 'badge', flow.type), el('code', null, flow.slug), el('span', 'meta', meta.join(' · ')), restart);
    var frames = el('div', 'frames');
    MODES.forEach(function (mode) {
      var figure = el('figure', 'mode');
      var frame = document.createElement('iframe');
      frame.title = flow.name + ', ' + mode[2];
      frame.dataset.slug = flow.slug;
      frame.dataset.mode = mode[2].toLowerCase();
      frame.dataset.min = String(MODAL_HEIGHT[flow.type] || 120);
      frame.style.height = frame.dataset.min + 'px';
      frame.src = frameUrl(flow, mode, key);
      figure.append(el('figcaption', null, mode[2]), frame);
      frames.append(figure);
    });
    restart.addEventListener('click', function () {
      frames.querySelectorAll('iframe').forEach(function (frame) {
        frame.contentWindow.location.reload();
      });
    });
    section.append(head, frames);
    return section;
  }

  function render(state) {
    var refused = state.errors.length;
    summary.textContent = plural(state.flows.length, 'flow') + (refused ? ', ' + plural(refused, 'file') + ' refused' : '');
    errorsBox.textContent = '';
    errorsBox.hidden = !refused;
    state.errors.forEach(function (error) {
      var box = el('article', 'error');
      box.dataset.file = error.file;
      var list = el('ul');
      error.problems.forEach(function (problem) {
        list.append(el('li', null, error.file + ':' + problem.line + ':' + problem.column + '  ' + (problem.path ? problem.path + ': ' : '') + problem.message));
      });
      box.append(el('h2', null, error.file + ' is refused'), list);
      errorsBox.append(box);
    });
    var kept = {};
    state.flows.forEach(function (flow, index) {
      var key = flow.file + '@' + flow.version;
      var section = document.getElementById('flow-' + flow.slug);
      if (section && section.dataset.key !== key && section.dataset.type === flow.type) {
        // Same flow, new version: the frames redraw in place, without loading the script again.
        var head = build(flow, key).querySelector('.flow-head');
        section.querySelector('.flow-head').replaceWith(head);
        section.dataset.key = key;
        section.querySelectorAll('iframe').forEach(function (frame) {
          frame.contentWindow.postMessage({ previewFlow: flow }, location.origin);
        });
        head.querySelector('.restart').addEventListener('click', function () {
          section.querySelectorAll('iframe').forEach(function (frame) {
            frame.contentWindow.location.reload();
          });
        });
      } else if (!section || section.dataset.key !== key) {
        var fresh = build(flow, key);
        if (section) section.replaceWith(fresh);
        section = fresh;
      }
      // Moving an iframe reloads it: move a section only when it is out of place.
      if (main.children[index] !== section) main.insertBefore(section, main.children[index] || null);
      kept[section.id] = true;
    });
    Array.prototype.slice.call(main.children).forEach(function (child) {
      if (!kept[child.id]) child.remove();
    });
  }

  function load() {
    fetch('/preview/flows.json', { cache: 'no-store' })
      .then(function (response) {
        return response.json();
      })
      .then(render, function () {
        summary.textContent = 'The service does not answer.';
      });
  }

  window.addEventListener('message', function (event) {
    if (event.origin !== location.origin || !event.data || typeof event.data.previewHeight !== 'number') return;
    document.querySelectorAll('iframe').forEach(function (frame) {
      if (frame.contentWindow !== event.source) return;
      frame.style.height = Math.max(Number(frame.dataset.min), Math.min(event.data.previewHeight, 1200)) + 'px';
    });
  });

  // The bookmarklet is for the bookmarks bar: clicked here, it would only meet this page's script policy.
  var bookmarklet = document.getElementById('bookmarklet');
  if (bookmarklet) {
    bookmarklet.addEventListener('click', function (event) {
      event.preventDefault();
      document.getElementById('picker-note').textContent = 'Drag the link to your bookmarks bar, then click the bookmark on a page of your app.';
    });
  }

  var events = new EventSource('/preview/events');
  events.addEventListener('reload', function (event) {
    render(JSON.parse(event.data));
  });
  events.addEventListener('open', function () {
    live.classList.remove('off');
  });
  events.addEventListener('error', function () {
    live.classList.add('off');
  });
  load();
})();
`;

export const FRAME_JS = String.raw`(function () {
  'use strict';
  var params = new URLSearchParams(location.search);
  var slug = params.get('slug');
  var theme = params.get('theme') === 'dark' ? 'dark' : 'light';
  document.documentElement.dir = params.get('dir') === 'rtl' ? 'rtl' : 'ltr';
  document.documentElement.dataset.theme = theme;
  var stage = document.getElementById('stage');
  var finished = document.getElementById('finished');
  var dataBox = document.getElementById('data');
  var definition;
  var element;
  var state;
  /** The types whose steps point at an element: the preview draws a stand-in for each step's target. */
  var TARGETED = { TOUR: true, HINT: true, TOOLTIP: true };

  /** A step without its page: every step shows in the preview, whatever page it lives on. */
  function anyPage(step) {
    var copy = Object.assign({}, step);
    delete copy.page;
    return copy;
  }

  function reset() {
    state = { current: 0, completed: {}, skipped: {}, finished: '' };
  }

  function open(step) {
    return !state.completed[step.id] && !state.skipped[step.id];
  }

  /** The next unfinished step after index, then from the start; -1 when none is left. */
  function after(index) {
    var steps = definition.data.steps;
    for (var i = 1; i <= steps.length; i++) {
      var at = (index + i) % steps.length;
      if (open(steps[at])) return at;
    }
    return -1;
  }

  function show(data) {
    dataBox.hidden = data === undefined;
    dataBox.textContent = data === undefined ? '' : 'Sent as the step\u2019s data: ' + JSON.stringify(data, null, 2);
  }

  function act(change) {
    return function (data) {
      change(data);
      render();
      return Promise.resolve();
    };
  }

  function finishStep(index, how, data) {
    var id = definition.data.steps[index].id;
    if (how === 'completed') {
      state.completed[id] = true;
      delete state.skipped[id];
    } else state.skipped[id] = true;
    show(data);
    var next = after(index);
    if (next < 0) state.finished = 'completed';
    else state.current = next;
  }

  /** A Flow object the elements can draw, whose actions change only this frame's state. */
  function model() {
    var steps = definition.data.steps.map(function (step, index) {
      var copy = Object.assign(anyPage(step), {
        index: index,
        state: { started: index === state.current, completed: !!state.completed[step.id], skipped: !!state.skipped[step.id], visible: true, blocked: false },
        start: act(function () {}),
        complete: act(function (data) {
          finishStep(index, 'completed', data);
        }),
        skip: act(function (data) {
          finishStep(index, 'skipped', data);
        }),
        reset: act(function () {
          delete state.completed[step.id];
          delete state.skipped[step.id];
          state.current = index;
        }),
      });
      if (TARGETED[definition.type] && step.selector) copy.selector = '[data-preview-target="' + index + '"]';
      return copy;
    });
    var done = steps.filter(function (step) {
      return step.state.completed || step.state.skipped;
    }).length;
    return {
      slug: definition.slug,
      name: definition.name,
      type: definition.type,
      version: definition.version,
      data: Object.assign({}, definition.data, { steps: definition.data.steps.map(anyPage) }),
      steps: steps,
      currentStep: steps[state.current],
      progress: state.finished === 'completed' ? 1 : steps.length ? done / steps.length : 0,
      isStarted: true,
      isCompleted: state.finished === 'completed',
      isSkipped: state.finished === 'skipped',
      isVisible: !state.finished,
      start: act(function () {}),
      complete: act(function () {
        state.finished = 'completed';
      }),
      skip: act(function () {
        state.finished = 'skipped';
      }),
      restart: act(reset),
      forward: act(function () {
        finishStep(state.current, 'completed');
      }),
      back: act(function () {
        if (state.current > 0) {
          state.current -= 1;
          delete state.completed[definition.data.steps[state.current].id];
          delete state.skipped[definition.data.steps[state.current].id];
        }
      }),
    };
  }

  /** A CUSTOM flow is drawn by the page; the preview shows what the page receives. */
  function renderCustom(flow) {
    stage.textContent = '';
    var step = flow.currentStep;
    if (!step || state.finished) return;
    var card = document.createElement('article');
    card.className = 'custom';
    var note = document.createElement('p');
    note.className = 'custom-note';
    note.textContent = 'CUSTOM: the page draws this step with <onboarding-flow>. It receives:';
    var title = document.createElement('h3');
    title.textContent = step.title || '';
    var subtitle = document.createElement('p');
    subtitle.textContent = step.subtitle || '';
    var props = document.createElement('pre');
    props.className = 'data';
    props.textContent = 'props: ' + JSON.stringify(Object.assign({}, definition.data.props, step.props), null, 2);
    var next = document.createElement('button');
    next.type = 'button';
    next.textContent = (step.primaryButton && step.primaryButton.title) || 'Next';
    next.addEventListener('click', function () {
      flow.forward();
    });
    card.append(note, title, subtitle, props, next);
    stage.append(card);
  }

  function render() {
    var flow = model();
    if (definition.type === 'CUSTOM') renderCustom(flow);
    else {
      if (!element) {
        if (TARGETED[definition.type]) {
          var targets = document.createElement('div');
          targets.className = 'targets';
          definition.data.steps.forEach(function (step, index) {
            if (!step.selector) return;
            var target = document.createElement('div');
            target.className = 'target';
            target.dataset.previewTarget = String(index);
            target.textContent = step.selector;
            targets.append(target);
          });
          stage.append(targets);
        }
        element = document.createElement('onboarding-' + definition.type.toLowerCase());
        element.setAttribute('theme', theme);
        stage.append(element);
      }
      element.currentFlow = flow;
    }
    finished.hidden = !state.finished;
    document.getElementById('finished-text').textContent = state.finished ? 'The flow is ' + state.finished + '.' : '';
    requestAnimationFrame(postHeight);
  }

  function postHeight() {
    parent.postMessage({ previewHeight: document.documentElement.scrollHeight }, location.origin);
  }

  document.getElementById('again').addEventListener('click', function () {
    reset();
    show(undefined);
    render();
  });
  new ResizeObserver(postHeight).observe(document.body);

  function draw(flow) {
    definition = flow;
    if (!definition) {
      stage.textContent = 'No flow "' + slug + '" is loaded.';
      return;
    }
    // A new version may change the steps or the tour's targets: draw everything anew.
    stage.textContent = '';
    element = undefined;
    reset();
    show(undefined);
    render();
  }

  // The page hands over a new version of the flow: draw it again from the start.
  window.addEventListener('message', function (event) {
    if (event.origin === location.origin && event.source === parent && event.data && event.data.previewFlow) draw(event.data.previewFlow);
  });
  fetch('/preview/flows.json', { cache: 'no-store' })
    .then(function (response) {
      return response.json();
    })
    .then(function (all) {
      draw(
        all.flows.filter(function (flow) {
          return flow.slug === slug;
        })[0],
      );
    });
})();
`;

export const PREVIEW_CSS = `:root {
  color-scheme: light;
  font: 14px/1.5 system-ui, -apple-system, 'Segoe UI', sans-serif;
  color: #1b1f2a;
}
body {
  margin: 0;
}
.page {
  background: #f3f4f9;
}
.bar {
  position: sticky;
  top: 0;
  z-index: 2;
  display: flex;
  align-items: center;
  gap: 1rem;
  padding: 0.75rem 1.25rem;
  background: #161a26;
  color: #fff;
}
.summary {
  flex: 1;
  color: #c8cde0;
}
.live::before {
  content: '● ';
  color: #3ecf8e;
}
.live.off::before {
  color: #ff7a7a;
}
.note {
  margin: 1rem 1.25rem 0;
  color: #4a5168;
  max-width: 70rem;
}
.picker {
  margin: 1rem 1.25rem 0;
  max-width: 70rem;
  color: #4a5168;
}
.picker h2 {
  margin: 0;
  font-size: 1rem;
  color: inherit;
}
.picker p {
  margin: 0.25rem 0 0;
}
.bookmarklet {
  display: inline-block;
  padding: 0.1rem 0.6rem;
  border: 1px solid #3651c9;
  border-radius: 6px;
  background: #e8ecfb;
  color: #3651c9;
  font-weight: 600;
  text-decoration: none;
  cursor: grab;
}
.bookmarklet.missing {
  cursor: default;
}
.picker-note {
  font-weight: 600;
}
.errors {
  display: grid;
  gap: 0.75rem;
  margin: 1rem 1.25rem 0;
}
.error {
  border: 1px solid #f1a7a0;
  background: #fff4f3;
  border-radius: 10px;
  padding: 0.75rem 1rem;
}
.error h2 {
  margin: 0 0 0.25rem;
  font-size: 1rem;
  color: #b42318;
}
.error ul {
  margin: 0;
  padding-inline-start: 1.2rem;
  font: 12.5px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace;
  overflow-wrap: anywhere;
}
.flows {
  display: grid;
  gap: 1.25rem;
  padding: 1rem 1.25rem 3rem;
}
.flow {
  background: #fff;
  border: 1px solid #dfe3f0;
  border-radius: 12px;
  padding: 1rem;
}
.flow-head {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 0.4rem 0.75rem;
  margin-bottom: 0.75rem;
}
.flow-head h2 {
  margin: 0;
  font-size: 1.05rem;
}
.badge {
  padding: 0.1rem 0.5rem;
  border-radius: 999px;
  background: #e8ecfb;
  color: #3651c9;
  font-size: 11px;
  font-weight: 700;
  letter-spacing: 0.04em;
}
.meta {
  flex: 1 1 16rem;
  color: #5b6275;
  font-size: 12.5px;
}
.restart {
  font: inherit;
  font-size: 12.5px;
  padding: 0.25rem 0.7rem;
  border: 1px solid #c9cfe4;
  border-radius: 6px;
  background: #fff;
  cursor: pointer;
}
.frames {
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(300px, 1fr));
  gap: 0.75rem;
}
.mode {
  margin: 0;
}
.mode figcaption {
  font-size: 12px;
  color: #5b6275;
  margin-bottom: 0.25rem;
}
.mode iframe {
  display: block;
  width: 100%;
  border: 1px solid #dfe3f0;
  border-radius: 8px;
  background: #fff;
}
.frame {
  box-sizing: border-box;
  min-height: 100vh;
  padding: 16px;
  background: #f7f8fc;
}
html[data-theme='dark'] {
  color-scheme: dark;
  color: #eef0f7;
}
html[data-theme='dark'] .frame {
  background: #141824;
}
.targets {
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(96px, 1fr));
  gap: 12px;
  margin-bottom: 96px;
}
.target {
  direction: ltr;
  unicode-bidi: isolate;
  padding: 8px;
  border: 1px dashed #9aa3c0;
  border-radius: 6px;
  font: 12px ui-monospace, SFMono-Regular, Menlo, monospace;
  overflow-wrap: anywhere;
}
.finished {
  font-size: 13px;
  color: #5b6275;
}
.data {
  margin: 8px 0 0;
  font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace;
  white-space: pre-wrap;
  color: #5b6275;
}
.custom {
  border: 1px dashed #9aa3c0;
  border-radius: 10px;
  padding: 12px 14px;
}
.custom-note {
  margin: 0;
  font-size: 12px;
  color: #5b6275;
}
.custom h3 {
  margin: 6px 0 2px;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme]) {
    color-scheme: dark;
    color: #e6e9f2;
  }
  .page {
    background: #0b0e17;
  }
  .note,
  .picker,
  .meta,
  .mode figcaption {
    color: #9aa3b8;
  }
  .flow {
    background: #131827;
    border-color: #232a3d;
  }
  .mode iframe {
    border-color: #232a3d;
  }
  .badge,
  .bookmarklet {
    background: #1e2340;
    color: #a5b0ff;
  }
  .restart {
    background: #1a1f33;
    border-color: #343b59;
  }
  .error {
    background: #2a1416;
    border-color: #7a2e2e;
  }
  .error h2 {
    color: #ff8a80;
  }
}
`;
