/* The report's page: the overview (standings, charts, crosstable, matches) and the
 * hand viewer. Plain JavaScript, no build step. Every text that comes from a log (bot
 * names, fault details) goes into the page as text (textContent), never as HTML: a
 * hostile bot's error message must not run in the reader's browser.
 *
 * A match's data is loaded when it is opened, from matches/m<k>.js, with a <script>
 * tag (which works from file://, unlike fetch); the file calls MusReport.matchLoaded.
 *
 * Frames of a hand: 0 is the deal, k (1..n) the table after the k-th decision, n + 1
 * the count (or where a forfeit stopped the hand). A seat's view shows only what that
 * seat saw (as `mus replay --seat`): its own cards, the other seats' discards as a
 * number of cards, the señas it saw; every hand is shown at the count, where every
 * seat is told the result.
 */
"use strict";
(function () {
  const INDEX = JSON.parse(document.getElementById("report-data").textContent);
  const PAGE = 100; // match rows per page: the page of a large league stays light
  const SUITS = { o: "oros", c: "copas", e: "espadas", b: "bastos" };
  const RANKS = { A: "A", S: "S", C: "C", R: "R" };
  const loaded = {}; // match id -> data
  const waiting = {}; // match id -> callbacks
  const ui = { match: null, hand: 0, frame: 0, view: "all", filter: "", page: 0 };

  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
      else if (k === "style") e.style.cssText = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  window.MusReport = {
    matchLoaded(data) {
      loaded[data.id] = data;
      for (const cb of waiting[data.id] || []) cb(data);
      delete waiting[data.id];
    },
    state: ui, // read by the browser tests
  };

  function loadMatch(summary, cb) {
    if (loaded[summary.id]) return cb(loaded[summary.id]);
    const first = !waiting[summary.id];
    (waiting[summary.id] = waiting[summary.id] || []).push(cb);
    if (!first) return;
    const s = el("script", { src: summary.file });
    s.onerror = () => showError(`cannot load ${summary.file} (is the report folder complete?)`);
    document.body.append(s);
  }

  function showError(text) {
    const p = $("load-error");
    p.textContent = text;
    p.hidden = false;
  }

  // ---------------------------------------------------------------- overview

  function drawCharts(league) {
    if (!league || typeof Chart === "undefined") return;
    const rows = league.standings;
    const names = rows.map((e) => e.name);
    const base = { responsive: true, maintainAspectRatio: false, animation: false, plugins: { legend: { display: false } } };
    new Chart($("chart-rating"), {
      type: "bar",
      data: {
        labels: names,
        datasets: [
          { data: rows.map((e) => [e.rating_low, e.rating_high]), backgroundColor: "rgba(31,107,69,.35)", grouped: false },
          { data: rows.map((e) => [e.rating - 3, e.rating + 3]), backgroundColor: "#174f33", grouped: false },
        ],
      },
      options: { ...base, indexAxis: "y", scales: { x: { title: { display: true, text: "rating" } } } },
    });
    const bars = (id, values, label) => new Chart($(id), {
      type: "bar",
      data: { labels: names, datasets: [{ label, data: values, backgroundColor: values.map((v) => (v < 0 ? "#c62828" : "#1f6b45")) }] },
      options: { ...base, scales: { y: { beginAtZero: true } } },
    });
    bars("chart-stones", rows.map((e) => e.stones_per_hand), "net stones per hand");
    bars("chart-faults", rows.map((e) => e.faults), "faults");
  }

  function drawCrosstable(league) {
    const t = $("crosstable");
    if (!t || !league) return;
    const names = league.standings.map((e) => e.name);
    const head = el("tr", {}, el("th", { text: "" }));
    for (const n of names) head.append(el("th", { class: "num", text: n }));
    t.append(el("thead", {}, head));
    const body = el("tbody");
    for (const a of names) {
      const tr = el("tr", {}, el("th", { text: a }));
      for (const b of names) {
        if (a === b) { tr.append(el("td", { class: "self", text: "—" })); continue; }
        const w = (league.cross[a] || {})[b] || 0, l = (league.cross[b] || {})[a] || 0;
        const frac = w + l ? w / (w + l) : 0.5;
        // A heat map: red where the row loses, green where it wins.
        const bg = `hsl(${Math.round(frac * 120)}, 55%, ${w + l ? 78 : 95}%)`;
        tr.append(el("td", { style: `background:${bg}`, title: `${a} won ${w} of ${w + l} against ${b}` },
          el("a", { href: "#pair=" + encodeURIComponent(a) + "&with=" + encodeURIComponent(b), text: `${w}-${l}` })));
      }
      body.append(tr);
    }
    t.append(body);
  }

  function matchRows() {
    const f = ui.filter.toLowerCase();
    return INDEX.matches.filter((m) => {
      if (ui.pair) return m.teams.includes(ui.pair[0]) && m.teams.includes(ui.pair[1]);
      if (!f) return true;
      return (m.id + " " + m.teams.join(" ")).toLowerCase().includes(f);
    });
  }

  function drawMatches() {
    const rows = matchRows();
    const pages = Math.max(1, Math.ceil(rows.length / PAGE));
    ui.page = Math.min(ui.page, pages - 1);
    const body = $("matches").tBodies[0];
    body.replaceChildren();
    for (const m of rows.slice(ui.page * PAGE, (ui.page + 1) * PAGE)) {
      const winner = m.winner === null || m.winner === undefined ? "—" : m.teams[m.winner];
      body.append(el("tr", { "data-match": m.id },
        el("td", {}, el("a", { href: "#match=" + encodeURIComponent(m.id), text: m.id })),
        el("td", { text: m.teams[0] }), el("td", { text: m.teams[1] }), el("td", { text: winner }),
        el("td", { class: "num", text: m.games ? m.games.join("-") : "" }), el("td", { class: "num", text: m.hands }),
        el("td", { class: "num", text: m.stones ? m.stones.join("-") : "" }),
        el("td", { class: "num" + (m.faults ? " bad" : ""), text: m.faults }),
        el("td", { class: m.broken ? "bad" : "", text: m.reason + (m.broken ? " (log problems)" : "") })));
    }
    const what = ui.pair ? ` (${ui.pair[0]} against ${ui.pair[1]})` : ui.filter ? ` matching “${ui.filter}”` : "";
    $("match-count").textContent = `${rows.length} of ${INDEX.matches.length} matches${what}`;
    $("page-no").textContent = `page ${ui.page + 1} of ${pages}`;
    $("page-prev").disabled = ui.page === 0;
    $("page-next").disabled = ui.page >= pages - 1;
  }

  // ---------------------------------------------------------------- a hand's frames

  function handOf() { return ui.match.hands[ui.hand]; }
  function lastFrame(h) { return h.steps.length + 1; }
  function seatView() { return ui.view === "all" ? null : Number(ui.view); }

  /** Whether the viewing seat (null: all-seeing) sees the seña of step st. */
  function senaSeen(st, v) { return v === null || st.s === v || (st.sv && st.sv[v]); }

  /** A step's action as the viewing seat saw it: another seat's discards are a count. */
  function actionText(st, v) {
    if (v !== null && st.s !== v && st.a && st.a.startsWith("discard")) {
      const n = st.a.split(" ").length - 1;
      return `discard ${n} card${n === 1 ? "" : "s"}`;
    }
    return st.a;
  }

  /** The cards of every seat at frame f (null for a seat whose cards are hidden). */
  function cardsAt(h, f, v) {
    let cards = h.dealt;
    for (let i = 0; i < Math.min(f, h.steps.length); i++) if (h.steps[i].hands) cards = h.steps[i].hands;
    const atCount = f === lastFrame(h) && h.result;
    if (atCount) cards = h.result.hands.map((x) => x.split(" "));
    // A hidden hand is drawn face down, as many cards as it holds (between a discard and
    // the replacements a seat holds fewer, which every seat saw it throw).
    return cards.map((c, s) => (v === null || s === v || atCount ? c : c.map(() => null)));
  }

  function scoresAt(h, f) {
    if (f === lastFrame(h)) {
      if (h.result) return h.result.scores_after;
      if (h.stopped && h.stopped.scores) return h.stopped.scores;
    }
    for (let i = Math.min(f, h.steps.length) - 1; i >= 0; i--) if (h.steps[i].sc) return h.steps[i].sc;
    return h.scores;
  }

  function cardEl(code, fresh) {
    if (!code) return el("span", { class: "card back", title: "hidden" });
    const rank = code[0], suit = code[1];
    return el("span", { class: `card ${suit}${fresh ? " new" : ""}`, "data-card": code, title: `${rank} de ${SUITS[suit] || suit}` },
      RANKS[rank] || rank, el("small", { text: SUITS[suit] || suit }));
  }

  /** Where seat s sits around the table, as percentages: S0 at the bottom, in turn order counter-clockwise. */
  function place(s, n) {
    const angle = (2 * Math.PI * s) / n; // seen from above, turn order runs counter-clockwise: bottom, right, top, left
    return [50 + 37 * Math.sin(angle), 50 + 35 * Math.cos(angle)];
  }

  function drawTable() {
    const m = ui.match, h = handOf(), f = ui.frame, v = seatView();
    const n = m.players;
    const cards = cardsAt(h, f, v);
    const prev = f > 0 ? cardsAt(h, f - 1, v) : null;
    const next = f <= h.steps.length && f < h.steps.length ? h.steps[f] : null;
    const phase = f === lastFrame(h) ? (h.result ? "count" : h.stopped ? "stopped" : "end") : next ? next.p || "" : "";
    // The last action of each seat in the lance (or mus round) being played: the betting so far.
    const last = new Array(n).fill(null);
    let run = null; // the phase of the run of steps being collected (a mus round, a discard round, a lance)
    for (let i = 0; i < Math.min(f, h.steps.length); i++) {
      const st = h.steps[i];
      if (st.p !== run) { last.fill(null); run = st.p; }
      last[st.s] = st;
    }
    if (next && next.p !== run) last.fill(null); // a new round or lance: nobody has spoken in it yet
    const t = $("table");
    t.replaceChildren();
    for (let s = 0; s < n; s++) {
      const [x, y] = place(s, n);
      const seat = m.seats[s] || { entry: "?" };
      const st = last[s];
      // Cards just drawn (replacements), not cards just turned face up at the count.
      const fresh = prev && cards[s] && prev[s] && !prev[s].includes(null) ? cards[s].filter((c) => !prev[s].includes(c)) : [];
      const badges = el("span", { class: "badges" }, el("span", { text: `T${s % 2}` }),
        s === h.dealer ? el("span", { text: "dealer" }) : null, s === h.mano ? el("span", { text: "mano" }) : null,
        v === s ? el("span", { text: "you" }) : null);
      const lastText = st ? actionText(st, v) + (st.sena && senaSeen(st, v) ? ` · seña ${st.sena}` : "") : "";
      t.append(el("div", {
        class: "seat" + (next && next.s === s && f < lastFrame(h) ? " to-act" : ""), "data-seat": s,
        style: `left:${x}%;top:${y}%`,
      },
      el("div", { class: "name", text: `S${s} ${seat.entry || seat.bot || ""}` }), badges,
      el("div", { class: "cards", "data-testid": `cards-${s}` }, ...(cards[s] || [null, null, null, null]).map((c) => cardEl(c, fresh.includes(c)))),
      el("div", { class: "last", text: lastText }),
      st && st.fault ? el("div", { class: "fault", text: `fault: ${st.fault.kind}` }) : null));
    }
    const sc = scoresAt(h, f);
    const bet = f > 0 && f <= h.steps.length ? h.steps[f - 1].bet : "";
    t.append(el("div", { class: "center" },
      el("div", { class: "phase", id: "phase", text: phase }),
      el("div", { class: "bet", id: "bet", text: bet ? `on the table: ${bet}` : "" }),
      el("div", { class: "note", id: "events", text: f > 0 && f <= h.steps.length ? (h.steps[f - 1].ev || []).join(" · ") : "" }),
      el("div", { class: "scores", id: "scores", "data-t0": sc ? sc[0] : "", "data-t1": sc ? sc[1] : "", text: sc ? `T0 ${sc[0]} – T1 ${sc[1]}` : "" }),
      el("div", { class: "note", text: `game ${h.game} · hand ${h.n}` })));
  }

  function drawLog() {
    const h = handOf(), f = ui.frame, v = seatView();
    $("hand-title").textContent = `Hand ${h.n} (game ${h.game}) · dealer S${h.dealer} · mano S${h.mano}`;
    const list = $("step-list");
    list.replaceChildren();
    const item = (cls, text, frame, attrs) => el("li", { class: cls + (frame > f ? " future" : ""), text, ...attrs });
    list.append(item("ev" + (f === 0 ? " cur" : ""), `dealt; scores T0 ${h.scores[0]} – T1 ${h.scores[1]}`, 0, { "data-frame": 0 }));
    for (const e of h.events || []) list.append(item("ev", e, 0));
    let phase = null;
    h.steps.forEach((st, i) => {
      if (st.p && st.p !== phase) { phase = st.p; list.append(item("phase-head", phase, i + 1)); }
      const li = item("step" + (f === i + 1 ? " cur" : ""), "", i + 1, { "data-step": i, "data-frame": i + 1, "data-seat": st.s });
      li.append(el("span", { class: "who", text: `S${st.s} ` }), el("span", { class: "action", text: actionText(st, v) }));
      if (st.sena && senaSeen(st, v)) li.append(el("span", { class: "sena", text: ` · seña ${st.sena}` }));
      // All-seeing: who saw a seña that not every seat saw (partner signals, an interception).
      if (st.sena && v === null && st.sv && !st.sv.every(Boolean)) {
        li.append(el("span", { class: "note seen", text: ` (seen by ${st.sv.map((x, s) => (x ? `S${s}` : "")).filter(Boolean).join(" ")})` }));
      }
      if (st.ms !== null && st.ms !== undefined) li.append(el("span", { class: "note", text: ` ${st.ms.toFixed(1)} ms` }));
      if (st.fault) li.append(el("span", { class: "fault", text: `⚠ ${st.fault.kind}: ${st.fault.detail || ""}` }));
      if (st.legal && f === i + 1 && (v === null || v === st.s)) li.append(el("span", { class: "legal", text: `legal then: ${st.legal}` }));
      li.addEventListener("click", () => go({ frame: i + 1 }));
      list.append(li);
      for (const e of st.ev || []) list.append(item("ev", e, i + 1));
    });
    if (h.error) list.append(el("li", { class: "fault", text: `the re-play broke off: ${h.error}` }));
    const end = lastFrame(h);
    list.append(item("phase-head" + (f === end ? " cur" : ""), h.result ? "count" : h.stopped ? "stopped" : "end", end, { "data-frame": end }));
    // Keep the newest line in sight: the current step and what followed it.
    const shown = list.querySelectorAll("li:not(.future)");
    if (shown.length) shown[shown.length - 1].scrollIntoView({ block: "nearest" });
  }

  function drawCount() {
    const h = handOf(), box = $("count");
    box.replaceChildren();
    if (ui.frame !== lastFrame(h)) return;
    if (h.result) {
      const r = h.result;
      box.append(el("h3", { text: `The count · scores before T0 ${r.scores_before[0]} – T1 ${r.scores_before[1]}` }));
      const ol = el("ol", { id: "count-lines" });
      for (const line of h.count || []) ol.append(el("li", { text: line }));
      box.append(ol, el("p", { id: "count-after", text: `scores after: T0 ${r.scores_after[0]} – T1 ${r.scores_after[1]}` +
        (r.game_over ? ` · game over: T${r.game_winner} wins (${r.ended_by})` : "") }));
    } else if (h.stopped) {
      const s = h.stopped;
      box.append(el("p", { class: "bad", text: `UNFINISHED: the match stopped here (${s.reason}: ${s.detail}); in ${s.phase}, S${s.to_act} to act; nothing was counted` }));
    }
  }

  function drawHandList() {
    const list = $("hand-list");
    list.replaceChildren();
    ui.match.hands.forEach((h, i) => {
      const faults = h.steps.filter((s) => s.fault).length;
      const r = h.result;
      const text = `hand ${h.n} · g${h.game}` + (r ? ` · ${r.scores_after[0]}-${r.scores_after[1]}` : " · unfinished") + (r && r.game_over ? " ★" : "");
      list.append(el("li", {}, el("a", {
        href: hashFor({ hand: i, frame: 0 }), class: i === ui.hand ? "cur" : "", "data-hand": i,
        title: faults ? `${faults} fault(s)` : "",
      }, text, faults || h.error ? el("span", { class: "flag", text: faults ? ` ⚠${faults}` : " ✗" }) : null)));
    });
  }

  function drawViewer() {
    const h = handOf();
    $("frame-label").textContent = ui.frame === 0 ? "the deal" : ui.frame === lastFrame(h) ? (h.result ? "the count" : "the end")
      : `step ${ui.frame} of ${h.steps.length}`;
    $("btn-prev").disabled = ui.frame === 0 && ui.hand === 0;
    $("btn-next").disabled = ui.frame === lastFrame(h) && ui.hand === ui.match.hands.length - 1;
    $("btn-prev-hand").disabled = ui.hand === 0;
    $("btn-next-hand").disabled = ui.hand === ui.match.hands.length - 1;
    drawTable();
    drawLog();
    drawCount();
    for (const a of document.querySelectorAll("#hand-list a")) a.classList.toggle("cur", Number(a.dataset.hand) === ui.hand);
  }

  function showMatch(m) {
    ui.match = m;
    $("overview").hidden = true;
    $("match").hidden = false;
    const r = m.result;
    const seats = m.seats.map((s) => `S${s.seat} ${s.entry || s.bot}`).join(", ");
    $("match-title").textContent = `Match ${m.id}`;
    const t = m.time;
    const time = t.decision_ms ? `${t.decision_ms} ms a decision, bank ${t.time_bank_ms} ms, forfeit at ${t.max_faults} faults · ` : "";
    $("match-info").textContent = `${seats} · seed ${m.seed} · ${time}` + (r ? `winner T${r.winner_team} (${r.reason}${r.detail ? ": " + r.detail : ""}), games ${r.games_won.join("-")}` : "no footer: the match did not finish") +
      (m.errors.length ? ` · ${m.errors.length} unreadable line(s): ${m.errors.join("; ")}` : "");
    const sel = $("view-select");
    sel.replaceChildren(el("option", { value: "all", text: "all-seeing" }));
    for (let s = 0; s < m.players; s++) sel.append(el("option", { value: String(s), text: `S${s}'s view` }));
    if (!m.hands.length) { $("table").replaceChildren(el("p", { text: "no hand was played" })); return; }
    drawHandList();
  }

  // ---------------------------------------------------------------- navigation (the URL's hash)

  function hashFor(change) {
    const p = new URLSearchParams();
    p.set("match", ui.match.id);
    p.set("hand", String(change.hand ?? ui.hand));
    p.set("frame", String(change.frame ?? ui.frame));
    p.set("view", String(change.view ?? ui.view));
    return "#" + p.toString();
  }

  function go(change) { location.hash = hashFor(change); }

  function step(delta) {
    const h = handOf();
    let hand = ui.hand, frame = ui.frame + delta;
    if (frame > lastFrame(h)) { if (hand + 1 >= ui.match.hands.length) return; hand += 1; frame = 0; }
    if (frame < 0) { if (hand === 0) return; hand -= 1; frame = lastFrame(ui.match.hands[hand]); }
    go({ hand, frame });
  }

  function jumpHand(delta) {
    const hand = ui.hand + delta;
    if (hand < 0 || hand >= ui.match.hands.length) return;
    go({ hand, frame: 0 });
  }

  function route() {
    const p = new URLSearchParams(location.hash.slice(1));
    const id = p.get("match") || (INDEX.matches.length === 1 && !INDEX.league ? INDEX.matches[0].id : null);
    if (!id) {
      $("match").hidden = true;
      $("overview").hidden = false;
      ui.match = null;
      ui.pair = p.get("pair") && p.get("with") ? [p.get("pair"), p.get("with")] : null;
      if (p.get("entry") !== null) { ui.filter = p.get("entry"); $("match-filter").value = ui.filter; ui.page = 0; }
      drawMatches();
      if (ui.pair || p.get("entry") !== null) $("matches-title").scrollIntoView();
      return;
    }
    const summary = INDEX.matches.find((m) => m.id === id);
    if (!summary) return showError(`no match ${id} in this report`);
    loadMatch(summary, (m) => {
      if (ui.match !== m) showMatch(m);
      if (!m.hands.length) return;
      ui.hand = Math.min(Math.max(0, Number(p.get("hand") || 0)), m.hands.length - 1);
      ui.frame = Math.min(Math.max(0, Number(p.get("frame") || 0)), lastFrame(handOf()));
      const view = p.get("view") || "all";
      ui.view = view === "all" || (Number(view) >= 0 && Number(view) < m.players) ? view : "all";
      $("view-select").value = ui.view;
      drawViewer();
      document.body.dataset.ready = `${m.id}/${ui.hand}/${ui.frame}/${ui.view}`; // for tests: drawn
    });
  }

  function keys(e) {
    if (!ui.match || e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    if (k === "ArrowRight") step(1);
    else if (k === "ArrowLeft") step(-1);
    else if (k === "ArrowDown" || k === "PageDown" || k === "n") jumpHand(1);
    else if (k === "ArrowUp" || k === "PageUp" || k === "p") jumpHand(-1);
    else if (k === "Home") go({ frame: 0 });
    else if (k === "End") go({ frame: lastFrame(handOf()) });
    else if (k === "a") go({ view: "all" });
    else if (/^[0-5]$/.test(k) && Number(k) < ui.match.players) go({ view: k });
    else return;
    e.preventDefault();
  }

  function init() {
    $("btn-next").addEventListener("click", () => step(1));
    $("btn-prev").addEventListener("click", () => step(-1));
    $("btn-next-hand").addEventListener("click", () => jumpHand(1));
    $("btn-prev-hand").addEventListener("click", () => jumpHand(-1));
    $("view-select").addEventListener("change", (e) => go({ view: e.target.value }));
    $("match-filter").addEventListener("input", (e) => { ui.filter = e.target.value; ui.pair = null; ui.page = 0; drawMatches(); });
    $("page-prev").addEventListener("click", () => { ui.page -= 1; drawMatches(); });
    $("page-next").addEventListener("click", () => { ui.page += 1; drawMatches(); });
    document.addEventListener("keydown", keys);
    window.addEventListener("hashchange", route);
    if (INDEX.league) drawCrosstable(INDEX.league);
    route();
    // The charts after the first paint: the tables come first.
    if (INDEX.league) requestAnimationFrame(() => setTimeout(() => drawCharts(INDEX.league), 0));
  }

  init();
})();
