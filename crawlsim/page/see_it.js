/* The "See it" page: draws crawls that crawlsim simulated when it wrote this file.
 *
 * Nothing here schedules, replays or bounds a crawl.  The data block holds, per run,
 * the frames crawlsim.views.replay computed (each URL's state at every instant, counters,
 * the seen set, each host's politeness state, lane spans, the event log's lines) and
 * the finish time, bounds and advisor's sentence (a model's margin line once); per setting of the knobs, which run
 * it is and where each what-if key leads.  This script picks the frame at the clock's
 * time and draws it.
 */
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const LOG_LINES = 8;

async function readData() {
  const text = document.getElementById("data").textContent.trim();
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

function el(tag, attrs, text) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function seconds(value) {
  return value.toFixed(1) + " s";
}

/* "1 URL", "2,360 URLs": a count, its thousands separated, and its noun, singular for exactly one
   (crawlsim/words.py's counted, the rule every surface uses). */
function counted(n, noun, plural = noun + "s") {
  return `${n.toLocaleString("en-US")} ${n === 1 ? noun : plural}`;
}

/* The last index i with list[i] <= t (by key), or -1. */
function lastAtOrBefore(list, t, key) {
  let lo = 0, hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(list[mid]) <= t + 1e-9) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

class Page {
  constructor(data) {
    this.d = data;
    this.s = data.strings;
    this.state = 0;
    this.t = 0;
    this.playing = false;
    this.speed = data.speed;
    this.compare = "";
    this.anchor = [performance.now(), 0];
    this.lastDrawn = null;
  }

  get run() { return this.d.runs[this.d.states[this.state].run]; }
  get block() { return this.d.blocks[this.run.block]; }
  get end() { return this.block.end; }

  start() {
    const d = this.d;
    document.title = d.title;
    document.getElementById("title").textContent = d.title;
    document.getElementById("note").textContent = d.note;
    document.getElementById("offer").textContent = d.offer;
    if (d.stepsFirst) document.getElementById("lanes-panel").before(document.getElementById("steps-panel"));
    document.getElementById("bounds-title").textContent = d.boundsTitle; // as `crawlsim run` heads the bounds
    if (d.margin) { // a model of a real crawl: its bounds are the model's, within its margin
      Object.assign(document.getElementById("margin"), { textContent: d.margin, hidden: false });
    }
    const tries = document.getElementById("tries");
    for (const line of d.tries) tries.append(this.tip(line));
    this.colours();
    this.buildLegend();
    this.buildGraph();
    this.useRun();
    this.draw(true);
    this.hintScrolls();
    window.addEventListener("resize", () => this.hintScrolls());
    document.addEventListener("keydown", (e) => this.onKey(e));
    for (const button of document.querySelectorAll("button[data-key]")) {
      button.addEventListener("click", () => {
        button.blur(); // else space or Enter would press it again, besides the key's own action
        this.press(button.dataset.key);
      });
    }
    const scrub = document.getElementById("scrub");
    scrub.addEventListener("input", () => this.seek((scrub.value / 1000) * this.end));
    scrub.addEventListener("change", () => scrub.blur());
    document.getElementById("keys").textContent = "Keys: " +
      Object.entries(d.keys).map(([k, v]) => (k === " " ? "space" : k.replace("Arrow", "")) + " " + v).join(" · ");
    if (d.states[0].knobs === null) document.getElementById("knobs").classList.add("off");
    const tick = () => { this.tick(); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  }

  /* "Try: press - - (workers 2): ...; press - once more (workers 1) ...", each key it
     names drawn as the buttons draw it. */
  tip(line) {
    const item = el("li", {}, "Try: ");
    let at = 0;
    for (const found of line.matchAll(/press ((?:\S+ )+?)(?=(?:once more )?\()/g)) {
      item.append(line.slice(at, found.index) + "press ");
      for (const key of found[1].trim().split(" ")) item.append(el("kbd", {}, key), " ");
      at = found.index + found[0].length;
    }
    item.append(line.slice(at));
    return item;
  }

  /* On a narrow screen the graph and the lanes scroll sideways inside their own boxes;
     a line above each says so, since nothing else shows there is more. */
  hintScrolls() {
    for (const id of ["graph", "lanes"]) {
      const box = document.getElementById(id);
      document.getElementById(id + "-hint").hidden = box.scrollWidth <= box.clientWidth + 1;
    }
  }

  /* The palette's colours as CSS variables: the style sheet names states, not colours. */
  colours() {
    const names = ["unseen", "frontier", "fetching", "fetched", "duplicate", "failed", "skipped", "lost"];
    const root = document.documentElement.style;
    this.d.look.states.forEach((look, code) => {
      root.setProperty("--" + names[code], look.hex);
      root.setProperty("--" + names[code] + "-ink", look.ink);
    });
  }

  // -- keys ---------------------------------------------------------------------------

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = { "=": "+", "_": "-" }[e.key] || e.key;
    if (key in this.d.keys) {
      e.preventDefault();
      this.press(key);
    }
  }

  press(key) {
    const clock = {
      " ": () => this.playPause(), ".": () => this.step(), r: () => this.restart(),
      f: () => this.faster(1), s: () => this.faster(-1),
      ArrowLeft: () => this.seek(this.t - Math.max(this.end / 40, 0.05)),
      ArrowRight: () => this.seek(this.t + Math.max(this.end / 40, 0.05)),
    }[key];
    if (clock) clock(); else this.turn(key);
    this.draw(true);
  }

  playPause() {
    if (!this.playing && this.t >= this.end) this.t = 0;
    this.playing = !this.playing;
    this.reanchor();
  }

  step() {
    this.playing = false;
    const times = this.block.times;
    const next = times[lastAtOrBefore(times, this.t, (x) => x) + 1];
    this.seek(next === undefined ? this.end : next);
  }

  restart() {
    this.playing = true;
    this.seek(0);
  }

  faster(direction) {
    const ladder = this.d.speeds;
    const at = ladder.indexOf(this.speed);
    this.speed = ladder[Math.min(ladder.length - 1, Math.max(0, at + direction))];
    this.reanchor();
  }

  seek(t) {
    this.t = Math.max(0, Math.min(t, this.end));
    this.reanchor();
  }

  reanchor() { this.anchor = [performance.now(), this.t]; }

  /* A what-if key: follow the table to the setting it leads to (simulated when this
     file was written), or say why there is none. */
  turn(key) {
    const move = this.d.states[this.state].moves[key];
    const message = document.getElementById("message");
    if (move === undefined) {
      message.textContent = "a recorded trace: the what-if keys are off";
    } else if (move === null) {
      message.textContent = "not simulated for this page. " + this.d.offer;
    } else if (move === -1) {
      message.textContent = "already at the end of that knob's range";
    } else {
      const before = this.run.finish;
      const atEnd = this.t >= this.end;
      this.state = move[0];
      message.textContent = "";
      this.compare = [move[1], before];
      this.useRun();
      this.t = atEnd ? this.end : Math.min(this.t, this.end);
      this.reanchor();
    }
  }

  // -- the clock -------------------------------------------------------------------

  tick() {
    if (this.playing) {
      const t = this.anchor[1] + ((performance.now() - this.anchor[0]) / 1000) * this.speed;
      this.t = Math.min(t, this.end);
      if (this.t >= this.end) this.playing = false;
    }
    this.draw(false);
  }

  useRun() {
    const block = this.block;
    this.cur = new Int8Array(this.d.urls.length).fill(-1);
    this.notes = new Int32Array(this.d.urls.length).fill(-1);
    for (const i of block.own) this.cur[i] = 0;
    this.applied = 0;
    this.drawGraph();
    this.drawKnobs();
    this.drawFinish();
    this.drawBounds();
    document.getElementById("steps-panel").hidden = !block.steps;
    this.lastDrawn = null;
  }

  /* The frame of time t: the URLs' states after every change up to that instant. */
  frameAt(t) {
    const block = this.block;
    const frame = lastAtOrBefore(block.times, t, (x) => x);
    if (frame + 1 < this.applied) {
      this.cur.fill(-1);
      this.notes.fill(-1);
      for (const i of block.own) this.cur[i] = 0;
      this.applied = 0;
    }
    for (; this.applied <= frame; this.applied++) {
      for (const [i, state, note] of block.changes[this.applied]) {
        this.cur[i] = state;
        this.notes[i] = note;
      }
    }
    return frame;
  }

  draw(force) {
    const key = this.state + ":" + this.t + ":" + this.playing + ":" + this.speed;
    if (!force && key === this.lastDrawn) return;
    this.lastDrawn = key;
    const frame = this.frameAt(this.t);
    const end = this.end;
    const status = this.playing ? "▶ playing" : this.t >= end ? "■ finished" : "❚❚ paused";
    document.getElementById("clock").textContent = `${status}  t ${this.t.toFixed(1)} / ${seconds(end)}`;
    document.querySelector("#play span").textContent = this.playing ? "pause" : "play";
    document.getElementById("speed").textContent = `speed ${this.speed}x`;
    const scrub = document.getElementById("scrub");
    if (document.activeElement !== scrub) scrub.value = end > 0 ? Math.round((this.t / end) * 1000) : 0;
    this.drawNodes();
    this.showEdges();
    this.drawCounters(frame);
    this.drawSeen(frame);
    this.drawHosts(frame);
    this.drawLanes();
    this.drawLog();
    this.drawSteps();
  }

  // -- the web: pages by host -----------------------------------------------------------

  buildLegend() {
    const legend = document.getElementById("legend");
    this.d.look.states.forEach((look, code) => {
      const item = el("span", { class: "key" });
      const svg = el("svg:svg", { viewBox: "-18 -18 36 36", width: "1.4em", height: "1.4em", "aria-hidden": "true" });
      svg.append(el("svg:use", { href: "#state" + code }));
      item.append(svg, document.createTextNode(" " + look.label));
      legend.append(item);
    });
  }

  symbols() {
    const defs = el("svg:defs");
    const marker = el("svg:marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7",
      markerHeight: "7", orient: "auto-start-reverse" });
    marker.append(el("svg:path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }));
    defs.append(marker);
    this.d.look.states.forEach((look, code) => {
      const g = el("svg:g", { id: "state" + code });
      const style = { fill: look.hex, class: "mark " + look.shape };
      const shape = {
        circle: () => el("svg:circle", { r: 14, ...style }),
        dashed: () => el("svg:circle", { r: 14, ...style }),
        diamond: () => el("svg:rect", { x: -12, y: -12, width: 24, height: 24, transform: "rotate(45)", ...style }),
        square: () => el("svg:rect", { x: -13, y: -13, width: 26, height: 26, ...style }),
      }[look.shape]();
      g.append(shape, el("svg:text", { class: "glyph", fill: look.ink, "text-anchor": "middle", dy: "0.35em" }, look.glyph));
      defs.append(g);
    });
    return defs;
  }

  buildGraph() {
    const svg = el("svg:svg", { id: "graph-svg", role: "img", "aria-label": "the web, pages grouped by host" });
    svg.append(this.symbols());
    this.scene = el("svg:g");
    svg.append(this.scene);
    document.getElementById("graph").append(svg);
    this.graphSvg = svg;
  }

  /* The run's URLs where its layout puts them, and its links as edges: solid the link
     that discovered a URL, dashed a link to a URL already seen (discarded). */
  drawGraph() {
    const block = this.block, layout = block.layout, svg = this.graphSvg;
    this.scene.replaceChildren();
    this.nodes = null;
    this.edges = [];
    if (!layout) {
      svg.setAttribute("viewBox", "0 0 800 440");
      return;
    }
    svg.setAttribute("viewBox", `0 0 ${layout.width} ${layout.height}`);
    for (const [name, top, bottom] of layout.bands) {
      this.scene.append(el("svg:rect", { class: "band", x: 4, y: top, width: layout.width - 8, height: bottom - top, rx: 10 }));
      this.scene.append(el("svg:text", { class: "band-name", x: 14, y: top + 24 }, name));
    }
    const at = new Map(block.own.map((url, k) => [url, layout.xy[k]]));
    const edges = el("svg:g");
    this.scene.append(edges);
    for (const [from, to, kind, t] of block.edges) {
      const [x1, y1] = at.get(from), [x2, y2] = at.get(to);
      let path;
      if (from === to) {
        path = `M${x1 + 26},${y1 - 10} c 34,-46 70,-12 12,8`;
      } else {
        const mx = (x1 + x2) / 2 + 14, my = (y1 + y2) / 2, dx = x2 - x1, dy = y2 - y1, bend = kind ? -0.2 : 0.12;
        path = `M${x1 + 14},${y1} Q${mx - dy * bend},${my + dx * bend} ${x2 + 14},${y2}`;
      }
      const line = el("svg:path", { d: path, class: kind ? "edge discarded" : "edge found", "marker-end": "url(#arrow)" });
      edges.append(line);
      this.edges.push([line, t]);
    }
    this.nodes = block.own.map((index, k) => {
      const [x, y] = layout.xy[k], [label, , url] = this.d.urls[index];
      const g = el("svg:g", { class: "node", transform: `translate(${x + 14},${y})` });
      const use = el("svg:use", { href: "#state0" });
      const title = el("svg:title", {}, url);
      const text = el("svg:text", { class: "label", x: 22, dy: "0.35em" }, label);
      g.append(use, text, title);
      this.scene.append(g);
      return { g, use, title, url, index, text, label };
    });
  }

  showEdges() {
    for (const [line, t] of this.edges || []) line.classList.toggle("hidden", t > this.t + 1e-9);
  }

  drawNodes() {
    if (!this.nodes) return this.drawBars();
    const s = this.s, look = this.d.look.states;
    for (const node of this.nodes) {
      const i = node.index, state = this.cur[i];
      node.use.setAttribute("href", "#state" + state);
      node.g.dataset.state = look[state].label;
      const note = this.notes[i] >= 0 ? " — " + s[this.notes[i]] : "";
      node.title.textContent = `${node.url}: ${look[state].label}${note}`;
      // failed, skipped and lost pages say why beside their name; the rest on hover
      node.text.textContent = node.label + (state >= 5 && note ? " (" + note.slice(3) + ")" : "");
    }
  }

  /* A web too large to draw page by page: a bar per host, split by state. */
  drawBars() {
    const frame = this.frameAt(this.t), block = this.block, look = this.d.look.states;
    const rows = frame >= 0 ? block.hosts[frame] : [];
    const largest = Math.max(1, ...rows.map((r) => r.slice(3).reduce((a, b) => a + b, 0)));
    const bars = this.scene;
    bars.replaceChildren();
    rows.forEach((row, k) => {
      const y = 20 + k * 34;
      bars.append(el("svg:text", { class: "band-name", x: 4, y: y + 16 }, this.s[block.hostNames[k]]));
      let x = 200;
      for (const code of [3, 4, 5, 6, 2, 1, 0]) {
        const width = (560 * row[3 + code]) / largest;
        if (width > 0) bars.append(el("svg:rect", { x, y, width, height: 24, fill: look[code].hex, class: "mark" }));
        x += width;
      }
    });
  }

  // -- the side panels ----------------------------------------------------------------

  drawFinish() {
    const finish = this.run.finish, box = document.getElementById("finish");
    box.dataset.finish = finish.toFixed(1);
    box.replaceChildren();
    if (this.compare) {
      const [change, before] = this.compare;
      const after = el("b", { class: finish < before - 1e-9 ? "better" : finish > before + 1e-9 ? "worse" : "" }, seconds(finish));
      box.append(`${change ? change + ": " : ""}finish ${seconds(before)} -> `, after);
    } else {
      box.append("finish ", el("b", {}, seconds(finish)));
    }
    if (this.run.note) box.append(el("small", {}, " (" + this.run.note + ")"));
  }

  drawKnobs() {
    const knobs = this.d.states[this.state].knobs;
    if (!knobs) return;
    for (const k of ["n", "w", "p", "g", "o"]) document.getElementById("k-" + k).textContent = knobs[k];
  }

  drawCounters(frame) {
    const c = frame >= 0 ? this.block.counters[frame] : null, s = this.s;
    const items = c ? [["fetched", s[c[0]], "done"], ["duplicate fetches", s[c[1]], s[c[1]] !== "0" ? "dup" : ""],
      ["wasted worker-seconds", c[2].toFixed(1), c[2] ? "dup" : ""], ["failed", c[3], c[3] ? "fail" : ""],
      ["frontier", c[4], "frontier"], ["in flight", c[5], "flight"]] : [];
    if (c && c[6]) items.push(["retries", c[6], "fail"]);
    if (c && c[8]) items.push(["over cap", c[8], "skip"]);
    const box = document.getElementById("counters");
    box.replaceChildren(...items.map(([label, value, cls]) => {
      const item = el("div", { class: "counter " + cls });
      item.append(el("span", {}, label), el("b", {}, String(value)));
      return item;
    }));
  }

  drawSeen(frame) {
    const c = frame >= 0 ? this.block.counters[frame] : [0, 0, 0, 0, 0, 0];
    const [seen, outside] = frame >= 0 ? this.block.seen[frame] : [0, 0];
    const title = document.getElementById("seen-title");
    title.textContent = outside ? `seen ${counted(seen, "URL")} ✗ ${outside} queued or in flight, not seen`
      : `seen ${counted(seen, "URL")}, the frontier and in flight among them ✓`;
    title.classList.toggle("broken", outside > 0);
    const share = (n) => Math.max(8, seen ? (100 * n) / seen : 0) + "%";
    const box = document.getElementById("seen");
    const frontier = el("div", { class: "set frontier", style: "flex-basis:" + share(c[4]) }, "frontier " + c[4]);
    const flight = el("div", { class: "set flight", style: "flex-basis:" + share(c[5]) }, "in flight " + c[5]);
    const rest = el("div", { class: "set rest" }, "fetched or dropped " + Math.max(0, seen - c[4] - c[5] + outside));
    box.replaceChildren(frontier, flight, rest);
  }

  drawHosts(frame) {
    const block = this.block, s = this.s, rows = frame >= 0 ? block.hosts[frame] : [];
    const table = document.getElementById("hosts");
    table.replaceChildren(...rows.map((row, k) => {
      const tr = el("tr");
      const slots = s[row[0]];
      tr.append(el("th", {}, s[block.hostNames[k]]),
        el("td", { class: slots.startsWith("idle") ? "idle" : "busy" }, slots),
        el("td", { class: s[row[1]].startsWith("wait") ? "wait" : "" }, s[row[1]] + (row[2] >= 0 && s[row[2]] ? "  " + s[row[2]] : "")));
      return tr;
    }));
    if (block.moreHosts > 0) table.append(el("tr", {}, `… ${counted(block.moreHosts, "more host")}`));
  }

  drawBounds() {
    const run = this.run, box = document.getElementById("bounds");
    box.replaceChildren();
    const explanation = document.getElementById("explanation");
    if (!run.bounds) {
      box.textContent = this.d.states[0].knobs === null
        ? "bounds need the scenario (a trace alone does not say what the crawl could have done)" : "";
      explanation.textContent = "";
      return;
    }
    const b = run.bounds;
    for (const [key, label] of [["depth", "depth"], ["busiest_host", "busiest host"], ["work", "work"]]) {
      const extra = key === "busiest_host" && b.host ? ` (${b.host}, ${this.s[b.fetches]})` : "";
      box.append(el("span", { class: "bound" + (key === b.binding ? " binding" : "") }, `${label} ${seconds(b[key])}${extra}`));
    }
    box.append(el("span", { class: "efficiency" }, `efficiency ${Math.round(b.efficiency * 100)}%`));
    explanation.textContent = this.s[run.explanation];
  }

  drawLanes() {
    const block = this.block, t = this.t, end = Math.max(this.end, 1e-9), look = this.d.look.spans;
    const lanes = Math.min(Math.max(this.run.lanes, block.lanes.length), 32);
    const width = 1000, left = 46, row = 30, plot = width - left - 10;
    const height = lanes * row + 90, x = (v) => left + (Math.min(v, end) / end) * plot;
    const svg = el("svg:svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "worker lanes" });
    for (let lane = 0; lane < lanes; lane++) {
      const y = lane * row + 4;
      svg.append(el("svg:text", { class: "lane-name", x: 0, y: y + 18 }, "w" + (lane + 1)));
      svg.append(el("svg:rect", { class: "lane", x: left, y, width: plot, height: row - 6 }));
      for (const [start, stop, label, outcome] of block.lanes[lane] || []) {
        if (start > t + 1e-9) break;
        const running = stop < 0 || stop > t;
        const w = Math.max(2, x(running ? t : stop) - x(start));
        const colour = running ? look.open : look[this.s[outcome]] || look.ok;
        svg.append(el("svg:rect", { class: "span", x: x(start), y, width: w, height: row - 6, fill: colour }));
        const text = this.s[label], room = Math.floor((w - 8) / 8.5);
        if (room >= 4) {
          const shown = text.length > room ? text.slice(0, room - 1) + "…" : text;
          svg.append(el("svg:text", { class: "span-label", x: x(start) + 4, y: y + 17 }, shown));
        }
      }
    }
    const hidden = Math.max(this.run.lanes, block.lanes.length) - lanes;
    if (hidden > 0) svg.append(el("svg:text", { class: "lane-name", x: left, y: lanes * row + 4 }, `… ${counted(hidden, "more lane")}`));
    this.drawSeries(svg, lanes * row + (hidden > 0 ? 16 : 8), x);
    svg.append(el("svg:line", { class: "cursor", x1: x(t), x2: x(t), y1: 0, y2: height - 20 }));
    const box = document.getElementById("lanes");
    box.replaceChildren(svg);
  }

  /* Frontier and in-flight counts over time, up to now, under the lanes. */
  drawSeries(svg, top, x) {
    const series = this.block.series, t = this.t, h = 56;
    const most = Math.max(1, ...series.map((p) => Math.max(p[1], p[2])));
    for (const [k, cls, name] of [[1, "frontier", "frontier"], [2, "flight", "in flight"]]) {
      let points = "", last = null;
      for (const p of series) {
        if (p[0] > t) break;
        const y = top + h - (h * p[k]) / most;
        if (last !== null) points += ` ${x(p[0])},${last}`;
        points += ` ${x(p[0])},${y}`;
        last = y;
      }
      if (last !== null) points += ` ${x(t)},${last}`;
      svg.append(el("svg:polyline", { class: "series " + cls, points }));
      svg.append(el("svg:text", { class: "series-name " + cls, x: 0, y: top + (k === 1 ? 18 : 42) }, name));
    }
    svg.append(el("svg:text", { class: "axis", x: 46, y: top + h + 22 }, "0 s"));
    svg.append(el("svg:text", { class: "axis", x: 990, y: top + h + 22, "text-anchor": "end" }, seconds(this.end)));
  }

  drawLog() {
    const log = this.block.log, s = this.s;
    const upto = lastAtOrBefore(log, this.t, (line) => line[0]) + 1;
    const list = document.getElementById("log");
    list.replaceChildren(...log.slice(Math.max(0, upto - LOG_LINES), upto).map(([t, text, cls]) => {
      const item = el("li", { class: s[cls] });
      item.append(el("span", { class: "time" }, t.toFixed(2)), " " + s[text]);
      return item;
    }));
  }

  drawSteps() {
    const steps = this.block.steps;
    if (!steps) return;
    const urls = this.d.urls;
    const name = (i) => (urls[i][0].startsWith("/") ? this.d.hosts[urls[i][1]] + urls[i][0] : urls[i][0]);
    const table = document.getElementById("steps");
    const head = el("tr");
    for (const h of ["step", "t", "fetched", "links found", "frontier after", "visited after"]) head.append(el("th", {}, h));
    const rows = [head];
    const done = lastAtOrBefore(steps, this.t, (row) => row[0]);
    steps.forEach(([t, url, added, discarded, frontier, visited], k) => {
      const tr = el("tr", { class: k === done ? "current" : k > done ? "later" : "" });
      const links = el("td");
      for (const i of added) links.append(el("span", {}, name(i) + " "));
      for (const i of discarded) links.append(el("b", { title: "already seen: discarded" }, name(i) + " "));
      tr.append(el("td", {}, String(k + 1)), el("td", { class: "t" }, seconds(t)), el("td", {}, name(url)), links,
        el("td", {}, frontier.map(name).join(", ") || "(empty)"), el("td", {}, visited.map(name).join(", ")));
      rows.push(tr);
    });
    const left = steps.length - done - 1;
    if (left > 0) {
      const hint = el("tr", { class: "hint" });
      hint.append(el("td", { colspan: 6 }, `${left} more step${left > 1 ? "s" : ""}: press . (or play) to see the next`));
      rows.push(hint);
    }
    table.replaceChildren(...rows);
  }
}

readData().then((data) => new Page(data).start());
