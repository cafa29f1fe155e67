"use strict";
// HeadScope's interactive page: plain JavaScript and canvas, no library, no network. Every text from the data
// (tokens, the input, predictions) is placed with textContent or fillText, never parsed as markup.
(function () {
  const $ = (id) => document.getElementById(id);
  const D = JSON.parse($("headscope-data").textContent);
  const S = { view: "head", maps: "intact", layer: 0, heads: new Set(), hover: null, zoom: null,
    nLayer: 0, nHead: 0, nQuery: 0 };
  const api = { data: D, state: S, ready: false, error: null };
  window.headscope = api;

  const N = D.tokens.length, DH = D.headSize;
  const P = D.palette;
  const off = new Set(D.disabled);
  const maskToken = D.tokens.find((t) => t === "[MASK]" || t === "<mask>") || null;
  // the maps shown: the model's (one part, queries and keys the same tokens), or, for attention given as arrays
  // (headscope html --arrays, headscope.head_view), one of its parts (attention; encoder, decoder, cross)
  const PARTS = D.parts || null;
  let L = D.layers, H = D.heads, NQ = N, NK = N, QT = D.tokens, KT = D.tokens, QSEG = D.segments, KSEG = D.segments;
  let cat = D.categories || null, LINES = D.lines, withheld = D.categoriesWithheld, LNUM = null, HNUM = null;
  const layerName = (l) => String(LNUM ? LNUM[l] : l + 1);
  const headNumber = (h) => (HNUM ? HNUM[h] : h + 1);
  const headName = (l, h) => layerName(l) + "-" + headNumber(h);
  // digits a map value deserves: six when exact, else as many as the quantisation keeps
  const DIGITS = D.encoding.mapBound > 0 ? Math.max(3, Math.min(6, Math.floor(-Math.log10(2 * D.encoding.mapBound)))) : 6;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v, digits) {
    if (!isFinite(v)) return String(v);
    return v.toFixed(digits === undefined ? 4 : digits);
  }
  function rgb(hex) {
    return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)];
  }
  const HEAT = P.heat.map(rgb), NEG = rgb(P.negative), POS = rgb(P.positive);
  // the app's heatmap scale (Palette.argb): white through blue to navy, 0..max
  function heat(t) {
    t = Math.max(0, Math.min(1, t));
    const pos = t * (HEAT.length - 1), k = Math.min(HEAT.length - 2, Math.floor(pos)), f = pos - k;
    const a = HEAT[k], b = HEAT[k + 1];
    return [Math.round(a[0] * (1 - f) + b[0] * f), Math.round(a[1] * (1 - f) + b[1] * f),
      Math.round(a[2] * (1 - f) + b[2] * f)];
  }
  // the app's diverging scale (Palette.diverging): red below zero, white at zero, blue above
  function diverging(t) {
    t = Math.max(-1, Math.min(1, t));
    const c = t < 0 ? NEG : POS, f = Math.abs(t);
    return [Math.round(255 * (1 - f) + c[0] * f), Math.round(255 * (1 - f) + c[1] * f),
      Math.round(255 * (1 - f) + c[2] * f)];
  }
  const css = (c) => "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")";
  function categoryOf(l, h) {
    return cat ? cat[l * H + h] : null;
  }
  function categoryColor(l, h) {
    const c = categoryOf(l, h);
    return c && P.categories[c.category] ? P.categories[c.category] : P.ui.unknown; // "uncertain" has no colour
  }

  // ---- decoding: base64 -> gzip -> typed arrays ----
  function bytes(b64) {
    const s = atob(b64), out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  async function gunzip(b64) {
    const stream = new Blob([bytes(b64)]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  function float32(u8) {
    const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength), out = new Float32Array(u8.byteLength / 4);
    for (let i = 0; i < out.length; i++) out[i] = dv.getFloat32(4 * i, true);
    return out;
  }
  // two byte planes (every high byte, then every low byte) back to 16-bit integers
  function uint16(u8) {
    const n = u8.length / 2, out = new Uint16Array(n);
    for (let i = 0; i < n; i++) out[i] = (u8[i] << 8) | u8[n + i];
    return out;
  }
  function int8(u8, scales) {
    const out = new Float32Array(u8.length);
    for (let i = 0; i < u8.length; i++) {
      const v = u8[i] > 127 ? u8[i] - 256 : u8[i];
      out[i] = v * scales[Math.floor(i / DH)];
    }
    return out;
  }
  async function decode() {
    if (PARTS) {
      // attention given as arrays: float32 maps of each part, no q or k (nothing ran here)
      api.parts = [];
      for (const p of PARTS) api.parts.push(float32(await gunzip(p.data)));
      return;
    }
    const scale = D.encoding.mapScale;
    if (scale === 0) {
      api.intact = float32(await gunzip(D.data.intact));
      api.asRun = D.data.asRun ? float32(await gunzip(D.data.asRun)) : api.intact;
    } else {
      // maps as round(scale * a); as run as (as run - intact) modulo 2^16
      const qi = uint16(await gunzip(D.data.intact));
      api.intact = new Float32Array(qi.length);
      for (let i = 0; i < qi.length; i++) api.intact[i] = qi[i] / scale;
      if (D.data.asRun) {
        const qd = uint16(await gunzip(D.data.asRun));
        api.asRun = new Float32Array(qd.length);
        for (let i = 0; i < qd.length; i++) api.asRun[i] = ((qi[i] + qd[i]) & 0xFFFF) / scale;
      } else {
        api.asRun = api.intact;
      }
    }
    if (D.encoding.qk === "float32") {
      api.q = float32(await gunzip(D.data.q));
      api.k = float32(await gunzip(D.data.k));
    } else {
      api.q = int8(await gunzip(D.data.q), float32(await gunzip(D.data.qScale)));
      api.k = int8(await gunzip(D.data.k), float32(await gunzip(D.data.kScale)));
    }
  }
  // one map's value: kind intact | asRun | difference; l, h, i (query), j (key) 0-based
  const at = (l, h, i, j) => ((l * H + h) * NQ + i) * NK + j;
  api.value = function (kind, l, h, i, j) {
    if (kind === "difference") return api.asRun[at(l, h, i, j)] - api.intact[at(l, h, i, j)];
    return (kind === "asRun" ? api.asRun : api.intact)[at(l, h, i, j)];
  };
  api.vector = function (which, l, h, t) {
    const a = which === "q" ? api.q : api.k, o = ((l * H + h) * N + t) * DH;
    return Array.from(a.subarray(o, o + DH));
  };
  // the neuron view's numbers for query i: scores q.k/sqrt(dh) and their softmax (a causal model masks j > i)
  api.neuron = function (l, h, i) {
    const q = api.vector("q", l, h, i), scores = [], probs = [];
    let max = -Infinity;
    for (let j = 0; j < N; j++) {
      if (D.causal && j > i) { scores.push(null); continue; }
      const k = api.vector("k", l, h, j);
      let s = 0;
      for (let d = 0; d < DH; d++) s += q[d] * k[d];
      s /= Math.sqrt(DH);
      scores.push(s);
      max = Math.max(max, s);
    }
    let sum = 0;
    for (let j = 0; j < N; j++) {
      const e = scores[j] === null ? 0 : Math.exp(scores[j] - max);
      probs.push(e);
      sum += e;
    }
    return { scores: scores, softmax: probs.map((e) => e / sum) };
  };
  const shown = () => (D.disabled.length ? S.maps : "intact");
  // switch to part p of the arrays: its maps, tokens, layers, heads and categories
  function usePart(p) {
    const d = PARTS[p];
    S.part = p;
    L = d.layers; H = d.heads; NQ = d.queryTokens.length; NK = d.keyTokens.length;
    QT = d.queryTokens; KT = d.keyTokens; QSEG = d.querySegments; KSEG = d.keySegments;
    cat = d.categories || null; withheld = d.categoriesWithheld; LINES = d.lines;
    LNUM = d.layerNumbers; HNUM = d.headNumbers;
    api.intact = api.asRun = api.parts[p];
    maxCache.clear(); lineCache.clear(); headLabels = null;
    S.layer = Math.min(S.layer, L - 1);
    if (S.zoom && (S.zoom[0] >= L || S.zoom[1] >= H)) S.zoom = null;
    for (const h of [...S.heads]) if (h >= H) S.heads.delete(h);
  }
  api.usePart = (p) => {
    const sel = $("part");
    if (sel) sel.value = String(p);
    usePart(p);
    layerOptions();
    swatches();
    redraw();
  };
  // each map's largest |value| and strongest lines, computed once (a 512-token layer is 3 million cells)
  const maxCache = new Map(), lineCache = new Map();
  function mapMax(kind, l, h) {
    const key = kind + "|" + l + "|" + h;
    if (maxCache.has(key)) return maxCache.get(key);
    let m = 0;
    for (let i = 0; i < NQ; i++) for (let j = 0; j < NK; j++) m = Math.max(m, Math.abs(api.value(kind, l, h, i, j)));
    maxCache.set(key, m);
    return m;
  }

  // ---- header, sidebar ----
  function header() {
    const input = D.pair !== undefined ? D.text + "  ‖  " + D.pair : D.text;
    $("input-text").textContent = input;
    $("input-text").title = input;
    document.title = "HeadScope · " + input;
    let facts = D.model + " · " + N + " tokens · " + L + " layers × " + H + " heads";
    if (PARTS) {
      const enc = PARTS.find((p) => p.name === "encoder" || p.name === "cross");
      if (enc) $("input-text").textContent = enc.keyTokens.join(" ");
      facts = (D.source === "encoder-decoder" ? D.model + ", an encoder-decoder" : "attention given as arrays (" + D.model + ")")
        + " · " + PARTS.map((p) => p.name + ": "
        + (p.name === "cross" ? p.queryTokens.length + " × " + p.keyTokens.length : p.queryTokens.length) + " tokens, "
        + p.layers + " layers × " + p.heads + " heads").join(" · ");
    }
    if (D.truncatedWordpieces > 0) facts += " · " + D.truncatedWordpieces + " wordpieces cut to fit";
    $("input-facts").textContent = facts;
    const sel = $("maps-shown");
    if (!D.disabled.length) {
      sel.disabled = true;
      $("maps-label").classList.add("inactive");
      $("maps-label").title = "No head is switched off: the maps as run are the intact maps.";
    } else if (D.shown) {
      S.maps = D.shown; // the maps the app showed when it exported the page
      sel.value = D.shown;
    }
    sel.addEventListener("change", () => { S.maps = sel.value; redraw(); });
  }
  function sidebar() {
    const box = $("predictions");
    const pr = D.predictions;
    if (!pr || ((!pr.predictions || !pr.predictions.length) && !pr.classes)) {
      box.appendChild(el("div", "muted", PARTS ? (D.source === "encoder-decoder" ? "An encoder-decoder's maps: its next target tokens are in `headscope predict --target`."
        : "Attention given as arrays: no model ran here, so nothing is predicted.")
        : pr ? "No [MASK] in the input: nothing to predict." : "This model has no prediction head."));
    } else {
      if (D.disabled.length) box.appendChild(el("div", "muted", "Top five before (intact) → after (heads off):"));
      for (const p of pr.predictions || []) {
        const div = el("div", "pred");
        const tok = D.tokens[p.position] !== undefined ? D.tokens[p.position] : "?";
        div.appendChild(el("div", "pred-title", tok + " at position " + p.position));
        const t = el("table");
        const before = p.before || null;
        for (let r = 0; r < p.top.length; r++) {
          const tr = el("tr");
          if (before) {
            tr.appendChild(el("td", "", before[r] ? before[r].token : ""));
            tr.appendChild(el("td", "p", before[r] ? fmt(before[r].probability, 3) : ""));
            tr.appendChild(el("td", "arrow", "→"));
          }
          const changed = before && before[r] && before[r].token !== p.top[r].token;
          tr.appendChild(el("td", changed ? "changed" : "", p.top[r].token));
          tr.appendChild(el("td", "p", fmt(p.top[r].probability, 3)));
          t.appendChild(tr);
        }
        div.appendChild(t);
        if (p.original) {
          div.appendChild(el("div", "summary", "“" + p.original.token + "”: " + fmt(p.original.probabilityBefore, 3)
            + " → " + fmt(p.original.probabilityAfter, 3) + " (rank " + p.original.rankAfter + " after), KL "
            + fmt(p.klDivergence, 4)));
        }
        box.appendChild(div);
      }
      for (const c of pr.classes || []) {
        box.appendChild(el("div", "", c.label + ": " + (c.before !== undefined ? fmt(c.before, 3) + " → " : "")
          + fmt(c.probability, 3)));
      }

    }
    const dis = $("disabled");
    if (PARTS) { // nothing can be switched off in arrays: no model runs here
      dis.hidden = true;
      dis.previousElementSibling.hidden = true;
      $("maps-label").hidden = true;
    } else if (!D.disabled.length) {
      dis.appendChild(el("div", "muted", "None: every head is on."));
    } else {
      const list = el("div", "headlist");
      for (const h of D.disabled) list.appendChild(el("span", "", h));
      dis.appendChild(list);
      dis.appendChild(el("div", "muted", "Mode: " + D.mode + (D.mode === "zero"
        ? " (the head's attention multiplied by 0)" : " (the head's rows spread evenly over the tokens)")
        + ". Maps: intact, as the model ran them, or the difference as run − intact."));
    }
    const about = $("about");
    const enc = D.encoding;
    about.appendChild(el("p", "", PARTS ? (D.source === "encoder-decoder" ? "Every number is the float32 HeadScope's engine computed: the encoder's, "
      + "the decoder's (causal) and the cross-attention's maps of this source and target."
      : "Every number is the float32 of the arrays given (float64 rounded to float32).")
      : enc.kind === "exact"
      ? "Every number is the model's float32, exactly as `headscope attention` writes it."
      : (enc.mapScale === 0 ? "Maps stored exactly (float32)" : "Maps stored as round(" + enc.mapScale
        + " × a): each value within " + enc.mapBound.toExponential(2) + " of the model's")
        + "; q and k as " + enc.qk + ", so the neuron view's softmax is close to, not equal to, the map."));
    about.appendChild(el("p", "", PARTS ? "Categories where they are defined (one sequence's bidirectional attention "
      + "probabilities), by HeadScope's " + D.classifier + " classifier on the maps given."
      : cat ? "Categories by HeadScope's " + D.classifier + " classifier on the intact maps."
      : D.categoriesWithheld));
    about.appendChild(el("p", "muted", "Heads are named layer-head, 1-based. Written by HeadScope; opens offline."));
  }

  // ---- head view (BertViz) ----
  const ROW = 20, FONT = "13px system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif";
  let headGeom = null, headLabels = null;
  function headControls() {
    const sel = $("head-layer");
    if (D.open) {
      S.layer = Math.min(D.open.layer || 0, L - 1);
      if (D.open.heads) for (const h of D.open.heads) S.heads.add(h);
    }
    layerOptions();
    sel.addEventListener("change", () => { S.layer = +sel.value; swatches(); drawHead(); });
    if (!D.open || !D.open.heads) for (let h = 0; h < H; h++) S.heads.add(h);
    $("heads-all").addEventListener("click", () => { for (let h = 0; h < H; h++) S.heads.add(h); swatches(); drawHead(); });
    $("heads-none").addEventListener("click", () => { S.heads.clear(); swatches(); drawHead(); });
    swatches();
    const c = $("head-canvas");
    c.addEventListener("mousemove", (e) => {
      const r = c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top + (headGeom ? headGeom.y0 : 0);
      let hover = null;
      if (headGeom && y >= headGeom.top) {
        const i = Math.floor((y - headGeom.top) / ROW);
        if (i >= 0 && x < headGeom.leftX + 8 && i < NQ) hover = { side: "query", index: i };
        else if (i >= 0 && x > headGeom.rightX - 8 && i < NK) hover = { side: "key", index: i };
      }
      const same = (hover === null && S.hover === null)
        || (hover && S.hover && hover.side === S.hover.side && hover.index === S.hover.index);
      if (!same) { S.hover = hover; drawHead(); }
    });
    c.addEventListener("mouseleave", () => { if (S.hover) { S.hover = null; drawHead(); } });
    let pending = false;
    $("head-scroll").addEventListener("scroll", () => {
      if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; drawHead(); }); }
    });
  }
  function layerOptions() {
    const sel = $("head-layer");
    sel.replaceChildren();
    for (let l = 0; l < L; l++) sel.appendChild(el("option", "", "layer " + layerName(l))).value = String(l);
    sel.value = String(S.layer);
  }
  function swatches() {
    const box = $("head-swatches");
    box.replaceChildren();
    for (let h = 0; h < H; h++) {
      const b = el("button", "swatch" + (S.heads.has(h) ? " on" : "") + (off.has(headName(S.layer, h)) ? " off-head" : ""));
      b.type = "button";
      b.id = "swatch-" + h;
      b.style.background = P.headColors[h];
      b.appendChild(el("span", "", headNumber(h)));
      const c = el("span", "cat");
      c.style.background = categoryColor(S.layer, h);
      b.appendChild(c);
      const k = categoryOf(S.layer, h);
      b.title = "head " + headName(S.layer, h) + (k ? " · " + k.category + " (" + fmt(k.confidence, 2) + ")" : "")
        + (off.has(headName(S.layer, h)) ? " · switched off" : "") + " · click to show or hide";
      b.setAttribute("aria-pressed", S.heads.has(h) ? "true" : "false");
      b.addEventListener("click", () => {
        if (S.heads.has(h)) S.heads.delete(h); else S.heads.add(h);
        swatches();
        drawHead();
      });
      box.appendChild(b);
    }
  }
  function ellipsize(ctx, s, w) {
    if (ctx.measureText(s).width <= w) return s;
    while (s.length > 1 && ctx.measureText(s + "…").width > w) s = s.slice(0, -1);
    return s + "…";
  }
  // the strongest k keys of each query row at or above minShare of the map's maximum (LineSelection.strongest)
  // a difference is measured against the head's intact maximum, so a layer that barely changed draws faintly
  function strongest(kind, l, h, k, onlyRow) {
    const max = mapMax(kind === "difference" ? "intact" : kind, l, h), out = [];
    if (max <= 0) return out;
    const rows = onlyRow === undefined ? [...Array(NQ).keys()] : [onlyRow];
    for (const i of rows) {
      const best = [];
      for (let j = 0; j < NK; j++) {
        const v = Math.abs(api.value(kind, l, h, i, j));
        if (v < LINES.minShare * max) continue;
        best.push([v, j]);
      }
      best.sort((a, b) => b[0] - a[0]);
      for (const [v, j] of (onlyRow === undefined ? best.slice(0, k) : best)) {
        out.push({ i: i, j: j, share: Math.min(1, v / max), sign: Math.sign(api.value(kind, l, h, i, j)) });
      }
    }
    return out;
  }
  function drawHead() {
    const c = $("head-canvas"), scroll = $("head-scroll");
    const width = Math.max(420, Math.min(scroll.clientWidth - 4, 900));
    const top = 24, height = top + Math.max(NQ, NK) * ROW + 8, dpr = window.devicePixelRatio || 1;
    // the canvas is only as tall as the view and stays put (sticky) while a spacer scrolls: a 512-token
    // drawing costs what a 40-token one does
    const shownH = Math.max(100, Math.min(height, scroll.clientHeight));
    if (c.width !== Math.round(width * dpr) || c.height !== Math.round(shownH * dpr)) {
      c.width = Math.round(width * dpr);
      c.height = Math.round(shownH * dpr);
      c.style.width = width + "px";
      c.style.height = shownH + "px";
    }
    $("head-spacer").style.height = (height - shownH) + "px";
    const y0 = Math.min(scroll.scrollTop, height - shownH);
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, shownH);
    ctx.setTransform(dpr, 0, 0, dpr, 0, -y0 * dpr);
    ctx.font = FONT;
    if (!headLabels) {
      const w = Math.min(170, Math.max(60, ...QT.concat(KT).map((t) => ctx.measureText(t).width + 16)));
      headLabels = { width: w, query: QT.map((t) => ellipsize(ctx, t, w - 10)), key: KT.map((t) => ellipsize(ctx, t, w - 10)) };
    }
    const labelW = headLabels.width;
    const leftX = labelW, rightX = width - labelW;
    headGeom = { top: top, leftX: leftX, rightX: rightX, y0: y0 };
    const kind = shown(), heads = [...S.heads].sort((a, b) => a - b);
    const view0 = y0 - ROW, view1 = y0 + shownH + ROW;
    ctx.fillStyle = P.ui["text-muted"];
    ctx.textBaseline = "middle";
    ctx.textAlign = "right";
    ctx.fillText("queries", leftX - 6, 10);
    ctx.textAlign = "left";
    ctx.fillText("keys", rightX + 6, 10);
    // lines
    const k = heads.length > 1 ? LINES.perQueryOverlay : LINES.perQuery;
    let count = 0;
    ctx.lineWidth = 1.6;
    for (const h of heads) {
      let lines;
      if (S.hover && S.hover.side === "query") lines = strongest(kind, S.layer, h, k, S.hover.index);
      else {
        const key = kind + "|" + S.layer + "|" + h + "|" + k;
        if (!lineCache.has(key)) lineCache.set(key, strongest(kind, S.layer, h, k));
        lines = lineCache.get(key);
        if (S.hover) lines = lines.filter((ln) => ln.j === S.hover.index);
      }
      // one path per colour and strength (sixteen steps): a few hundred strokes, not thousands; only the
      // lines that cross the rows in view
      const paths = new Map();
      for (const ln of lines) {
        const yi = top + ln.i * ROW + ROW / 2, yj = top + ln.j * ROW + ROW / 2;
        count++;
        if (Math.max(yi, yj) < view0 || Math.min(yi, yj) > view1) continue;
        const colour = kind === "difference" ? (ln.sign < 0 ? P.negative : P.positive)
          : heads.length === 1 ? (S.hover ? P.ui["line-hover"] : P.ui.line) : P.headColors[h];
        const step = Math.max(1, Math.min(16, Math.round(16 * ln.share)));
        const key = colour + "|" + step;
        if (!paths.has(key)) paths.set(key, { colour: colour, step: step, path: new Path2D() });
        const p = paths.get(key).path;
        p.moveTo(leftX + 4, yi);
        p.lineTo(rightX - 4, yj);
      }
      for (const p of paths.values()) {
        ctx.strokeStyle = p.colour;
        ctx.globalAlpha = Math.max(0.06, p.step / 16) * (heads.length > 1 ? 0.8 : 0.9);
        ctx.stroke(p.path);
      }
    }
    ctx.globalAlpha = 1;
    // tokens (those in view)
    for (let i = Math.max(0, Math.floor((view0 - top) / ROW) - 1); i < Math.min(Math.max(NQ, NK), Math.ceil((view1 - top) / ROW) + 1); i++) {
      const y = top + i * ROW + ROW / 2;
      for (const side of ["query", "key"]) {
        if (i >= (side === "query" ? NQ : NK)) continue;
        const hot = S.hover && S.hover.side === side && S.hover.index === i;
        const x = side === "query" ? leftX - 6 : rightX + 6;
        const text = headLabels[side][i], token = (side === "query" ? QT : KT)[i];
        ctx.textAlign = side === "query" ? "right" : "left";
        // the app's token chips: the second sentence and the mask on their colours, the pointed token highlighted
        const chip = hot ? P.ui.highlight : token === maskToken ? P.ui["token-mask"]
          : (side === "query" ? QSEG : KSEG)[i] === 1 ? P.ui["token-b"] : null;
        if (chip) {
          const w = ctx.measureText(text).width + 8;
          ctx.fillStyle = chip;
          ctx.fillRect(side === "query" ? x - w + 4 : x - 4, y - ROW / 2 + 2, w, ROW - 4);
        }
        ctx.fillStyle = hot ? P.ui["hover-token"] : P.ui["text-soft"];
        ctx.fillText(text, x, y);
      }
    }
    api.linesDrawn = count;
    api.tokenPoint = (side, i) => {
      const r = c.getBoundingClientRect();
      return { x: r.left + (side === "query" ? leftX - 20 : rightX + 20), y: r.top + top + i * ROW + ROW / 2 - y0 };
    };
    const what = kind === "difference" ? "as run − intact (blue: more, red: less, against each head's intact maximum)"
      : kind === "asRun" ? "maps as run" : "intact maps";
    $("head-note").textContent = heads.length === 0 ? "No head chosen: click a swatch."
      : count + " lines · " + what + " · the strongest " + k + " per token, at least "
        + Math.round(LINES.minShare * 100) + "% of each head's maximum";
  }

  // ---- model view ----
  // each block's largest value (Palette.pooled, as the app's thumbnails): a thin diagonal or column still shows
  function pooledPixels(kind, l, h, px) {
    const rowsN = Math.max(1, Math.min(NQ, px)), side = Math.max(1, Math.min(NK, px));
    const img = new ImageData(side, rowsN), max = mapMax(kind, l, h);
    const cell = new Float32Array(side * rowsN);
    for (let i = 0; i < NQ; i++) {
      const r = Math.floor(i * rowsN / NQ);
      for (let j = 0; j < NK; j++) {
        const c = Math.floor(j * side / NK), v = api.value(kind, l, h, i, j), o = r * side + c;
        if (Math.abs(v) > Math.abs(cell[o])) cell[o] = v;
      }
    }
    for (let o = 0; o < cell.length; o++) {
      const col = kind === "difference" ? diverging(max > 0 ? cell[o] / max : 0) : heat(max > 0 ? cell[o] / max : 0);
      img.data[4 * o] = col[0]; img.data[4 * o + 1] = col[1]; img.data[4 * o + 2] = col[2]; img.data[4 * o + 3] = 255;
    }
    return img;
  }
  function legend() {
    const box = $("legend");
    box.replaceChildren();
    if (!cat) {
      box.appendChild(el("span", "muted", withheld));
      return;
    }
    const counts = {};
    for (const c of cat) counts[c.category] = (counts[c.category] || 0) + 1;
    for (const name of Object.keys(P.categories)) {
      const item = el("span");
      const key = el("span", "key");
      key.style.background = P.categories[name];
      item.appendChild(key);
      item.appendChild(document.createTextNode(name + " " + (counts[name] || 0)));
      box.appendChild(item);
    }
    if (counts.uncertain) { // the classifier too unsure to name a category: grey, as in the app
      const item = el("span");
      const key = el("span", "key");
      key.style.background = P.ui.unknown;
      item.appendChild(key);
      item.appendChild(document.createTextNode("uncertain " + counts.uncertain));
      box.appendChild(item);
    }
  }
  function drawGrid() {
    const grid = $("grid"), scroll = $("grid-scroll");
    const avail = Math.max(300, ($("view-model").clientWidth - 32) * 0.55);
    const availH = Math.max(300, scroll.parentElement.clientHeight - 24);
    const size = Math.max(24, Math.min(72, Math.floor(Math.min((avail - 30) / H, (availH - 20) / L)) - 9));
    grid.replaceChildren();
    grid.style.gridTemplateColumns = "24px repeat(" + H + ", " + (size + 6) + "px)";
    grid.appendChild(el("div"));
    for (let h = 0; h < H; h++) grid.appendChild(el("div", "collabel", headNumber(h)));
    const kind = shown();
    for (let l = 0; l < L; l++) {
      grid.appendChild(el("div", "rowlabel", "L" + layerName(l)));
      for (let h = 0; h < H; h++) {
        const b = el("button", "thumb" + (S.zoom && S.zoom[0] === l && S.zoom[1] === h ? " chosen" : ""));
        b.type = "button";
        b.id = "thumb-" + l + "-" + h;
        b.style.borderColor = categoryColor(l, h);
        const k = categoryOf(l, h);
        b.title = "head " + headName(l, h) + (k ? " · " + k.category + " (" + fmt(k.confidence, 2) + ")" : "")
          + (off.has(headName(l, h)) ? " · switched off" : "");
        const c = el("canvas");
        const img = pooledPixels(kind, l, h, Math.round(size * (window.devicePixelRatio || 1)));
        c.width = img.width;
        c.height = img.height;
        c.style.width = size + "px";
        c.style.height = size + "px";
        c.getContext("2d").putImageData(img, 0, 0);
        b.appendChild(c);
        if (off.has(headName(l, h))) {
          const x = el("div", "off", "OFF");
          b.appendChild(x);
          const g = c.getContext("2d");
          g.strokeStyle = P.ui.off;
          g.lineWidth = Math.max(1, img.width / size * 2);
          g.beginPath(); g.moveTo(0, 0); g.lineTo(img.width, img.height); g.moveTo(img.width, 0); g.lineTo(0, img.height);
          g.stroke();
        }
        b.addEventListener("click", () => {
          for (const t of document.querySelectorAll(".thumb.chosen")) t.classList.remove("chosen");
          b.classList.add("chosen");
          S.zoom = [l, h];
          drawZoom();
        });
        grid.appendChild(b);
      }
    }
  }
  let zoomGeom = null;
  function drawZoom() {
    if (!S.zoom) S.zoom = [0, 0];
    const [l, h] = S.zoom, kind = shown(), max = mapMax(kind, l, h);
    const title = $("zoom-title");
    title.replaceChildren();
    title.appendChild(document.createTextNode("Head " + headName(l, h) + " "));
    const k = categoryOf(l, h);
    const sub = el("span", "cat", (k ? k.category + " (confidence " + fmt(k.confidence, 2) + ")" : "")
      + (off.has(headName(l, h)) ? " · switched off" : "")
      + (kind === "difference" ? " · as run − intact, ±" + fmt(max, 4) : " · " + (kind === "asRun" ? "as run" : "intact")
        + ", white 0 to navy " + fmt(max, 4)));
    title.appendChild(sub);
    const c = $("zoom-canvas"), scroll = $("zoom-scroll");
    const ctx0 = c.getContext("2d");
    ctx0.font = "12px system-ui, sans-serif";
    let label = Math.min(120, Math.max(40, ...QT.concat(KT).map((t) => ctx0.measureText(t).width + 16)));
    const NM = Math.max(NQ, NK);
    let cell = Math.max(2, Math.min(40, Math.floor(Math.min(scroll.clientWidth - label - 8, scroll.clientHeight - label - 8) / NM)));
    if (cell < 8) {
      // too small for labels: the whole width for the map, the read-out names the tokens
      label = 2;
      cell = Math.max(2, Math.min(28, Math.floor(Math.min(scroll.clientWidth - 10, scroll.clientHeight - 10) / NM)));
    }
    const width = label + NK * cell + 2, height = label + NQ * cell + 2, dpr = window.devicePixelRatio || 1;
    c.width = Math.round(width * dpr);
    c.height = Math.round(height * dpr);
    c.style.width = width + "px";
    c.style.height = height + "px";
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    // one pixel per cell, scaled without smoothing (as the app's heatmaps)
    const cells = document.createElement("canvas");
    cells.width = NK;
    cells.height = NQ;
    const img = new ImageData(NK, NQ);
    for (let i = 0; i < NQ; i++) {
      for (let j = 0; j < NK; j++) {
        const v = api.value(kind, l, h, i, j), o = 4 * (i * NK + j);
        const col = kind === "difference" ? diverging(max > 0 ? v / max : 0) : heat(max > 0 ? v / max : 0);
        img.data[o] = col[0]; img.data[o + 1] = col[1]; img.data[o + 2] = col[2]; img.data[o + 3] = 255;
      }
    }
    cells.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(cells, label, label, NK * cell, NQ * cell);
    ctx.strokeStyle = P.ui.rule;
    ctx.strokeRect(label - 0.5, label - 0.5, NK * cell + 1, NQ * cell + 1);
    zoomGeom = { label: label, cell: cell, l: l, h: h };
    if (cell >= 8) {
      ctx.font = Math.min(12, cell - 1) + "px system-ui, sans-serif";
      ctx.fillStyle = "#222";
      ctx.textBaseline = "middle";
      for (let i = 0; i < NQ; i++) {
        ctx.textAlign = "right";
        ctx.fillText(ellipsize(ctx, QT[i], label - 8), label - 4, label + i * cell + cell / 2);
      }
      for (let j = 0; j < NK; j++) {
        ctx.save();
        ctx.translate(label + j * cell + cell / 2, label - 4);
        ctx.rotate(-Math.PI / 2);
        ctx.textAlign = "left";
        ctx.fillText(ellipsize(ctx, KT[j], label - 12), 0, 0);
        ctx.restore();
      }
    }
    $("zoom-readout").textContent = "Rows: queries, columns: keys. Point at a cell to read it"
      + (cell < 8 ? " (the map is too small for labels: the read-out names the tokens)." : ".");
  }
  function zoomEvents() {
    const c = $("zoom-canvas");
    c.addEventListener("mousemove", (e) => {
      if (!zoomGeom) return;
      const r = c.getBoundingClientRect(), g = zoomGeom;
      const j = Math.floor((e.clientX - r.left - g.label) / g.cell), i = Math.floor((e.clientY - r.top - g.label) / g.cell);
      if (i < 0 || j < 0 || i >= NQ || j >= NK) return;
      const kind = shown();
      $("zoom-readout").textContent = "query " + i + " “" + QT[i] + "” → key " + j + " “" + KT[j] + "”: "
        + fmt(api.value(kind, g.l, g.h, i, j), DIGITS) + (kind === "intact" ? "" : " (intact " + fmt(api.value("intact", g.l, g.h, i, j), DIGITS) + ")");
    });
  }

  // ---- neuron view ----
  function neuronControls() {
    const fill = (sel, n, label) => { for (let i = 0; i < n; i++) sel.appendChild(el("option", "", label(i))).value = String(i); };
    fill($("neuron-layer"), L, (l) => "layer " + (l + 1));
    fill($("neuron-head"), H, (h) => "head " + (h + 1));
    fill($("neuron-query"), N, (i) => i + ": " + D.tokens[i]);
    $("neuron-layer").addEventListener("change", (e) => { S.nLayer = +e.target.value; drawNeuron(); });
    $("neuron-head").addEventListener("change", (e) => { S.nHead = +e.target.value; drawNeuron(); });
    $("neuron-query").addEventListener("change", (e) => { S.nQuery = +e.target.value; drawNeuron(); });
    // open where the app was: its head (else the first one switched off) at the first mask token
    const [nl, nh] = String(D.neuronHead || "1-1").split("-").map((x) => +x - 1);
    if (nl >= 0 && nl < L && nh >= 0 && nh < H) { S.nLayer = nl; S.nHead = nh; }
    const firstMask = maskToken === null ? -1 : D.tokens.indexOf(maskToken);
    if (firstMask >= 0) S.nQuery = firstMask;
    $("neuron-layer").value = String(S.nLayer);
    $("neuron-head").value = String(S.nHead);
    $("neuron-query").value = String(S.nQuery);
  }
  // a vector cell's width: the two vectors share what the table's other columns leave (4 to 9 pixels a dimension)
  let CELL = 4, VH = 14;
  function vectorCanvas(values, scale, describe) {
    const c = el("canvas");
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.round(values.length * CELL * dpr);
    c.height = Math.round(VH * dpr);
    c.style.width = values.length * CELL + "px";
    c.style.height = VH + "px";
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    for (let d = 0; d < values.length; d++) {
      ctx.fillStyle = css(diverging(scale > 0 ? values[d] / scale : 0));
      ctx.fillRect(d * CELL, 0, CELL, VH);
    }
    c.addEventListener("mousemove", (e) => {
      const d = Math.floor((e.clientX - c.getBoundingClientRect().left) / CELL);
      if (d >= 0 && d < values.length) $("neuron-readout").textContent = describe(d);
    });
    return c;
  }
  function drawNeuron() {
    const l = S.nLayer, h = S.nHead, i = S.nQuery, body = $("neuron-body");
    CELL = Math.max(4, Math.min(9, Math.floor(($("neuron-scroll").clientWidth - 500) / (2 * DH))));
    VH = CELL >= 7 ? 16 : 14;
    body.replaceChildren();
    const q = api.vector("q", l, h, i), res = api.neuron(l, h, i);
    let vmax = 0, pmax = 0;
    for (const v of q) vmax = Math.max(vmax, Math.abs(v));
    const keys = [];
    for (let j = 0; j < N; j++) {
      const k = api.vector("k", l, h, j), qk = k.map((v, d) => v * q[d]);
      for (const v of k) vmax = Math.max(vmax, Math.abs(v));
      for (const v of qk) pmax = Math.max(pmax, Math.abs(v));
      keys.push([k, qk]);
    }
    const head = el("tr", "query");
    head.appendChild(el("td", "tok", "q: " + D.tokens[i]));
    const qc = el("td");
    qc.appendChild(vectorCanvas(q, vmax, (d) => "q[" + d + "] = " + fmt(q[d], 4)));
    head.appendChild(qc);
    head.appendChild(el("td", "muted", "layer " + (l + 1) + ", head " + (h + 1) + ", query " + i));
    for (let x = 0; x < 4; x++) head.appendChild(el("td"));
    body.appendChild(head);
    let best = 0;
    for (let j = 0; j < N; j++) best = Math.max(best, res.softmax[j]);
    for (let j = 0; j < N; j++) {
      const [k, qk] = keys[j], tr = el("tr", j === i ? "self" : "");
      const tok = el("td", "tok", "k: " + D.tokens[j]);
      tok.title = "click: make “" + D.tokens[j] + "” the query";
      tok.addEventListener("click", () => { S.nQuery = j; $("neuron-query").value = String(j); drawNeuron(); });
      tr.appendChild(tok);
      const kc = el("td");
      kc.appendChild(vectorCanvas(k, vmax, (d) => "k[" + d + "] of “" + D.tokens[j] + "” = " + fmt(k[d], 4)
        + ", q[" + d + "] = " + fmt(q[d], 4)));
      tr.appendChild(kc);
      const pc = el("td");
      pc.appendChild(vectorCanvas(qk, pmax, (d) => "q[" + d + "] × k[" + d + "] = " + fmt(qk[d], 4)));
      tr.appendChild(pc);
      const masked = res.scores[j] === null;
      tr.appendChild(el("td", "num", masked ? "masked" : fmt(res.scores[j], 3)));
      tr.appendChild(el("td", "num", fmt(res.softmax[j], 4)));
      tr.appendChild(el("td", "num", fmt(api.value("intact", l, h, i, j), 4)));
      const bar = el("td"), track = el("div", "bar"), fill = el("div");
      fill.style.width = Math.round(80 * res.softmax[j] / (best || 1)) + "px";
      track.appendChild(fill);
      bar.appendChild(track);
      tr.appendChild(bar);
      body.appendChild(tr);
    }
    $("neuron-readout").textContent = "Point at a vector for its numbers. softmax: recomputed here from q and k; map: the intact model's attention."
      + (D.disabled.length ? " (The neuron view shows the intact model.)" : "");
  }

  // ---- the circuit graph (headscope html --circuit): an SVG built here from the data, no library ----
  // The SVG namespace as the HTML parser assigns it to an <svg> element: the page holds no address of any kind
  // (PageChecks: nothing in it may look like one), not even a namespace name that is never fetched.
  const SVG = (() => { const d = document.createElement("div"); d.innerHTML = "<svg></svg>"; return d.firstChild.namespaceURI; })();
  const INPUT_COLOURS = { q: "#e07b00", k: "#2e9e44", v: "#7b3fb5", mlp: "#737373", logits: "#737373" };
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  }
  function circuitText(e) {
    const C = D.circuit;
    const into = e.input === "q" || e.input === "k" || e.input === "v"
      ? e.to.label + "'s " + { q: "queries", k: "keys", v: "values" }[e.input]
      : e.input === "mlp" ? "the MLP of layer " + (e.to.layer + 1) : "the logits";
    return e.label + ": " + e.from.label + "'s output into " + into + ". " + C.method.toUpperCase() + " estimate "
      + fmt(e.estimate, 4) + (e.exact === undefined ? "" : ", exact patch " + fmt(e.exact, 4))
      + " (" + C.metric + ", ablated minus clean).";
  }
  function drawCircuit() {
    const C = D.circuit;
    const box = $("circuit-scroll");
    if (!C || box.firstChild) return;
    $("circuit-facts").textContent = "The top " + C.edges.length + " of " + C.total + " edges by |" + C.method.toUpperCase()
      + " score| (" + C.ablation + " ablation); " + C.metric + ": clean " + fmt(C.clean, 3) + ", corrupted " + fmt(C.corrupted, 3) + ".";
    const W = Math.max(640, box.clientWidth - 8), Hh = 520, M = 28;
    const col = (c) => M + c * (W - 2 * M) / (C.layers + 1);
    const row = (r) => M + r * (Hh - 2 * M) / C.heads;
    const at = (n) => n.kind === "embeddings" ? [col(0), row(C.heads / 2)]
      : n.kind === "head" ? [col(n.layer + 1), row(n.head)]
      // a key/value group (grouped-query attention): left of the column, level with the middle of its heads
      : n.kind === "group" ? [col(n.layer + 1) - 9, row(n.head * C.groupSize + (C.groupSize - 1) / 2)]
      : n.kind === "mlp" ? [0.6 * col(n.layer + 1) + 0.4 * col(n.layer + 2), row(C.heads)] : [col(C.layers + 1), row(C.heads / 2)];
    const s = svg("svg", { id: "circuit-svg", width: W, height: Hh, viewBox: "0 0 " + W + " " + Hh, role: "img" });
    s.appendChild(svg("title", {})).textContent = "Circuit graph: the top edges by score";
    const max = C.edges.reduce((m, e) => Math.max(m, Math.abs(e.estimate)), 0) || 1;
    const edges = svg("g", { id: "circuit-edges" });
    for (let i = C.edges.length - 1; i >= 0; i--) { // the largest drawn last, on top
      const e = C.edges[i];
      const a = at(e.from), b = at(e.to);
      const dy = e.input === "q" ? -3 : e.input === "v" ? 3 : 0;
      const t = Math.abs(e.estimate) / max;
      const line = svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1] + dy, stroke: INPUT_COLOURS[e.input],
        "stroke-width": 0.8 + 5 * t, "stroke-opacity": 0.35 + 0.6 * t, "stroke-linecap": "round",
        "data-edge": i, class: "circuit-edge" });
      if (e.estimate > 0) line.setAttribute("stroke-dasharray", "6 4");
      line.appendChild(svg("title", {})).textContent = circuitText(e);
      line.addEventListener("mouseenter", () => { $("circuit-readout").textContent = circuitText(e); });
      line.addEventListener("click", () => { $("circuit-readout").textContent = circuitText(e); });
      edges.appendChild(line);
    }
    s.appendChild(edges);
    const nodes = svg("g", { id: "circuit-nodes" });
    for (let l = 0; l < C.layers; l++) {
      const lab = svg("text", { x: col(l + 1), y: 14, "text-anchor": "middle", "font-size": 10, fill: "#404040" });
      lab.textContent = "L" + (l + 1);
      nodes.appendChild(lab);
      for (let h = 0; h < C.heads; h++) {
        const p = at({ kind: "head", layer: l, head: h });
        const c = svg("circle", { cx: p[0], cy: p[1], r: 4, fill: "#d0d6e0", class: "circuit-node" });
        c.appendChild(svg("title", {})).textContent = "head " + (l + 1) + "-" + (h + 1);
        nodes.appendChild(c);
      }
      for (let g = 0; C.groupSize > 1 && g < C.heads / C.groupSize; g++) { // where k and v edges enter
        const p = at({ kind: "group", layer: l, head: g });
        const r = svg("rect", { x: p[0] - 3, y: p[1] - 3, width: 6, height: 6, fill: "#8a94a3" });
        r.appendChild(svg("title", {})).textContent = "key/value group " + (l + 1) + "-g" + (g + 1) + " (heads "
          + (l + 1) + "-" + (g * C.groupSize + 1) + " to " + (l + 1) + "-" + (g * C.groupSize + C.groupSize) + ")";
        nodes.appendChild(r);
      }
      const m = at({ kind: "mlp", layer: l });
      nodes.appendChild(svg("rect", { x: m[0] - 4, y: m[1] - 4, width: 8, height: 8, fill: "#b8c0cc" }));
    }
    for (const [kind, name] of [["embeddings", "embed"], ["logits", "logits"]]) {
      const p = at({ kind: kind });
      nodes.appendChild(svg("rect", { x: p[0] - 5, y: p[1] - 5, width: 10, height: 10, fill: "#5b6b80" }));
      const t = svg("text", { x: p[0], y: p[1] - 9, "text-anchor": "middle", "font-size": 10, fill: "#404040" });
      t.textContent = name;
      nodes.appendChild(t);
    }
    s.appendChild(nodes);
    box.appendChild(s);
  }
  api.drawCircuit = drawCircuit;

  // ---- views ----
  function showView(v) {
    S.view = v;
    for (const t of document.querySelectorAll("[role=tab]")) t.setAttribute("aria-selected", t.dataset.view === v ? "true" : "false");
    for (const name of ["head", "model", "neuron", "circuit"]) $("view-" + name).hidden = name !== v;
    redraw();
  }
  function redraw() {
    if (!api.ready) return;
    if (S.view === "head") drawHead();
    else if (S.view === "model") { legend(); drawGrid(); drawZoom(); }
    else if (S.view === "circuit") drawCircuit();
    else drawNeuron();
  }
  api.showView = showView;
  api.setMaps = (m) => { $("maps-shown").value = m; S.maps = m; redraw(); };

  // the parts of attention given as arrays (encoder, decoder, cross): a chooser beside the tabs
  function partControls() {
    if (PARTS.length < 2) return;
    const label = el("label", "maps-shown", "Attention: ");
    const sel = el("select");
    sel.id = "part";
    PARTS.forEach((p, i) => { sel.appendChild(el("option", "", p.name)).value = String(i); });
    sel.addEventListener("change", () => api.usePart(+sel.value));
    label.appendChild(sel);
    $("maps-label").after(label);
  }
  async function start() {
    // the stylesheet's colours from the app's palette (UiColor), so the page and the window agree
    const root = document.documentElement.style;
    for (const [name, v] of [["--muted", "text-muted"], ["--soft", "text-soft"], ["--rule", "rule"],
      ["--status", "status-background"], ["--line", "line"], ["--off", "off"], ["--selected", "selected"],
      ["--track", "track"], ["--highlight", "highlight"]]) root.setProperty(name, P.ui[v]);
    header();
    sidebar();
    for (const t of document.querySelectorAll("[role=tab]")) t.addEventListener("click", () => showView(t.dataset.view));
    try {
      if (typeof DecompressionStream === "undefined") {
        throw new Error("This browser cannot decompress the data (DecompressionStream): use a current Chrome, Edge, Firefox or Safari.");
      }
      await decode();
    } catch (e) {
      api.error = String(e && e.message ? e.message : e);
      $("status").textContent = api.error;
      $("status").classList.add("error");
      return;
    }
    if (PARTS) {
      usePart(0);
      partControls();
    }
    headControls();
    if (PARTS) $("tab-neuron").hidden = true; // no q or k: nothing ran here
    else neuronControls();
    zoomEvents();
    if (D.circuit) $("tab-circuit").hidden = false;
    api.ready = true;
    if (D.open && D.open.view === "model") {
      showView("model");
      return;
    }
    $("status").textContent = "";
    let resize = null;
    window.addEventListener("resize", () => { clearTimeout(resize); resize = setTimeout(redraw, 100); });
    redraw();
  }
  start();
})();
