// coreflow serve: the pages' script. Every value from the server is shown as text
// (textContent), never as markup; the one exception is the report's charts, SVG the
// server drew with every text escaped (serve/report.py).
"use strict";

(function () {
  const DATA = JSON.parse(document.getElementById("data").textContent);
  const L = DATA.labels;
  const LANG = DATA.lang;
  const app = document.getElementById("app");

  // ---------------------------------------------------------------- little helpers
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }
  function q(base, params) {
    const u = new URL(base, location.href);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    u.searchParams.set("lang", LANG);
    return u.pathname + u.search;
  }
  async function api(path, token, body) {
    const init = { headers: { Authorization: "Bearer " + token } };
    if (body !== undefined) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const r = await fetch(q(path, {}), init);
    const data = await r.json().catch(() => ({ error: r.statusText }));
    if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), { status: r.status });
    return data;
  }
  function live(url, onState, onStatus) {
    const src = new EventSource(url);
    src.addEventListener("state", (e) => onState(JSON.parse(e.data)));
    src.onopen = () => onStatus && onStatus(true);
    src.onerror = () => onStatus && onStatus(false);
    return src;
  }
  function langLink() {
    const other = LANG === "ja" ? "en" : "ja";
    const u = new URL(location.href);
    u.searchParams.set("lang", other);
    return el("a", { class: "lang", href: u.pathname + u.search + u.hash, text: L.language });
  }
  function matchTitle(m) {
    return `${m.match_id} · ${L.round} ${m.round} · ${L.table} ${m.table} · ` +
      m.players.join(" v ");
  }
  function statusLine(s) {
    const parts = [];
    if (s.turn_player) parts.push(`${L.turn} ${s.turn} · ${L.turn_player} ${s.turn_player}` +
                                  ` · ${L.chance} ${s.chance || "-"}`);
    parts.push(`${L.result}: ${s.result}`);
    return parts.join(" · ");
  }
  function linesList(lines) {
    return el("ol", { class: "lines" },
      ...lines.map((ln) => el("li", { value: ln.seq, "data-seq": ln.seq, class: ln.type,
                                      text: ln.text })));
  }
  function randomId() {
    const a = new Uint8Array(12);
    crypto.getRandomValues(a);
    return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // ---------------------------------------------------------------- the table
  function tablePage() {
    const token = DATA.token;
    let state = DATA.state;
    const key = "coreflow." + state.match.match_id + ".";
    const store = window.localStorage;
    let client = store.getItem(key + "client");
    if (!client) { client = randomId(); store.setItem(key + "client", client); }
    let pending = JSON.parse(store.getItem(key + "pending") || "[]");
    let sending = false;
    let answered = 0;  // answers shown since the page was opened (data-answered)

    const header = el("header", {}, el("h1", { text: matchTitle(state.match) }), langLink());
    const status = el("p", { class: "status" });
    const conn = el("span", { class: "conn" });
    const answer = el("div", { id: "answer", class: "answer", "aria-live": "polite" });
    const input = el("input", { id: "entry", type: "text", autocomplete: "off",
                                autocapitalize: "off", spellcheck: "false", list: "entries",
                                placeholder: L.entry_placeholder });
    // Completions: every entry legal offers now, whole or to be completed.
    const entries = el("datalist", { id: "entries" });
    const form = el("form", { id: "entry-form", class: "entry",
                              onsubmit: (e) => { e.preventDefault(); enter(input.value); } },
                    input, entries, el("button", { id: "enter", type: "submit", text: L.enter }));
    const legal = el("div", { id: "legal", class: "legal" });
    const board = el("pre", { id: "board", class: "board" });
    const lines = el("div", { id: "lines" });
    const reason = el("input", { id: "undo-reason", type: "text", placeholder: L.undo_reason });
    const undo = el("button", { id: "undo", type: "button", text: L.undo,
                                onclick: () => {
                                  if (!reason.value.trim()) { reason.focus(); return; }
                                  queue({ kind: "undo", reason: reason.value });
                                  reason.value = "";
                                } });
    const call = el("button", { id: "call", type: "button", class: "call", text: L.call_judge,
                                onclick: async () => {
                                  try {
                                    await api("/api/table/call", token, { reason: "" });
                                    say("called", [L.called]);
                                  } catch (err) { say("refused", [err.message]); }
                                } });
    app.append(header, el("p", {}, status, " ", conn), answer, form,
               el("h2", { text: L.legal }), legal,
               el("div", { class: "tools" }, reason, undo, call),
               el("h2", { text: L.board }), board, el("h2", { text: L.lines }), lines);

    function say(kind, reasons, entry) {
      answer.replaceChildren(
        el("strong", { class: kind, text: (L[kind] || kind) + (entry ? `: ${entry}` : "") }),
        ...reasons.map((r) => el("div", { class: "reason", text: r })));
      answer.dataset.kind = kind;
    }
    function render(s) {
      state = s;
      status.textContent = statusLine(s);
      board.textContent = s.board_text;
      lines.replaceChildren(linesList(s.lines));
      legal.replaceChildren(...(s.over ? [el("p", { class: "over", text: L.over })] : []),
        ...(s.end_ahead ? [el("button", { id: "finish", type: "button", class: "option",
                                          text: L.store_end,
                                          onclick: () => queue({ kind: "finish" }) })] : []),
        ...s.legal.map((x) => {
          if (!x.entry) return el("p", { class: "note", text: x.note });
          if (x.filled) {
            // Needs no decision: the rules fill it in, stored with the next entry.
            return el("p", { class: "filled", "data-entry": x.entry },
                      el("span", { class: "entry", text: x.entry }), ` — ${L.filled}`);
          }
          const b = el("button", {
            type: "button", class: "option" + (x.complete ? "" : " incomplete") +
              (x.filled ? " filled" : ""),
            "data-entry": x.entry, title: x.note,
            onclick: () => {
              if (x.complete) { enter(x.entry); return; }
              input.value = x.entry;
              input.focus();
              say("unread", [L.complete_it]);
            } }, el("span", { class: "entry", text: x.entry }),
            el("span", { class: "why", text: x.note }));
          return b;
        }));
      entries.replaceChildren(...s.legal.filter((x) => x.entry && !x.filled)
        .map((x) => el("option", { value: x.entry })));
      document.body.dataset.lastSeq = String(s.last_seq);
      document.body.dataset.ready = "1";
    }
    function save() { store.setItem(key + "pending", JSON.stringify(pending)); }
    function nextSeq() {
      const n = Number(store.getItem(key + "seq") || "0") + 1;
      store.setItem(key + "seq", String(n));
      return n;
    }
    function enter(text) {
      if (!text.trim()) return;
      queue({ kind: "entry", text: text });
    }
    function queue(item) {
      item.client_seq = nextSeq();
      item.at = null;  // set when first sent: the record the page shows then
      pending.push(item);
      save();
      pump();
    }
    async function pump() {
      if (sending) return;
      sending = true;
      try {
        while (pending.length) {
          const item = pending[0];
          if (item.at === null) { item.at = state.last_seq; save(); }
          say("sending", [], item.text || L[item.kind === "finish" ? "store_end" : "undo"]);
          const body = { client: client, client_seq: item.client_seq, at: item.at };
          let a;
          try {
            a = item.kind === "undo"
              ? await api("/api/table/undo", token, { ...body, reason: item.reason })
              : item.kind === "finish" ? await api("/api/table/finish", token, body)
              : await api("/api/table/entry", token, { ...body, text: item.text });
          } catch (err) {
            if (err.status && err.status < 500 && err.status !== 429) {
              pending.shift(); save();
              say("refused", [err.message], item.text);
              continue;
            }
            conn.textContent = L.offline;
            setTimeout(pump, 1500);
            return;
          }
          pending.shift(); save();
          answered += 1;
          const words = a.status === "accepted"
            ? (a.stored || []).map((l) => `${l.seq}: ${l.text}`)
              .concat((a.filled || []).map((l) => `${l.seq}: ${l.text} (${L.filled})`))
              .concat(a.notes || [])
            : a.reasons || [];
          say(a.status, words, item.text || L[item.kind === "finish" ? "store_end" : "undo"]);
          if (a.status === "accepted" && item.kind === "entry" && input.value === item.text) {
            input.value = "";
          }
          if (a.status === "refused" || a.status === "unread") input.value = item.text || "";
          state.last_seq = a.last_seq;
          if (a.state) render(a.state);
          else {
            try { render(await api("/api/table", token)); } catch (_e) { /* the stream will */ }
          }
          document.body.dataset.answered = String(answered);
        }
      } finally { sending = false; }
    }
    render(state);
    live(q("/api/table/stream", { token: token }), (s) => {
      if (!sending) render(s);
    }, (up) => { conn.textContent = up ? L.live : L.offline; if (up) pump(); });
    pump();
  }

  // ---------------------------------------------------------------- the spectator
  function watchPage() {
    const m = DATA.state.match;
    const status = el("p", { class: "status" });
    const board = el("pre", { id: "board", class: "board" });
    const lines = el("div", { id: "lines" });
    app.append(el("header", {}, el("h1", { text: matchTitle(m) }), langLink()),
               el("p", { class: "note", text: L.spectator }), status,
               el("h2", { text: L.board }), board, el("h2", { text: L.lines }), lines);
    function render(s) {
      status.textContent = statusLine(s);
      board.textContent = s.board_text;
      lines.replaceChildren(linesList(s.lines));
      document.body.dataset.lastSeq = String(s.last_seq);
      document.body.dataset.ready = "1";
    }
    render(DATA.state);
    live(q(`/api/watch/${encodeURIComponent(m.match_id)}/stream`, {}), render);
  }

  // ---------------------------------------------------------------- the judge
  function judgePage() {
    const token = DATA.token;
    const list = el("div", { id: "tables" });
    const ev = DATA.state.event;
    app.append(el("header", {}, el("h1", { text: `${L.judge_title} · ${ev ? ev.name : ""}` }),
                  langLink()), list);
    function viewerLink(t) {
      let seq = t.last_seq;
      let extra = "";
      if (t.call && t.call.kind === "refused" && t.call.line) {
        seq = t.call.at + 1;
        extra = `?call=${t.call.id}&lang=${LANG}`;
      } else {
        if (t.errors.length) seq = t.errors[0].seq;
        extra = `?lang=${LANG}`;
      }
      return el("a", { class: "viewer", target: "_blank",
                       href: `/judge/${encodeURIComponent(token)}/view/` +
                             `${encodeURIComponent(t.match_id)}${extra}#${seq}`,
                       text: L.open_viewer });
    }
    function rulingForm(t) {
      const text = el("input", { type: "text", class: "ruling-text", placeholder: L.ruling_text });
      const back = el("input", { type: "number", class: "take-back", min: "0", value: "0",
                                 title: L.take_back });
      const out = el("div", { class: "ruling-answer" });
      return el("form", { class: "ruling", onsubmit: async (e) => {
        e.preventDefault();
        try {
          const a = await api("/api/judge/ruling", token, {
            match_id: t.match_id, text: text.value, take_back: Number(back.value || 0),
            at: t.last_seq, client: "judge", client_seq: Date.now() });
          out.textContent = a.status === "recorded" || a.status === "accepted"
            ? L.accepted : (a.reasons || []).join("; ");
        } catch (err) { out.textContent = err.message; }
      } }, el("label", { text: L.ruling }), text, back,
      el("button", { type: "submit", text: L.record_ruling }), out);
    }
    function render(s) {
      const tables = s.tables.slice().sort((a, b) => (b.call ? 1 : 0) - (a.call ? 1 : 0));
      list.replaceChildren(...tables.map((t) => el("section", {
        class: "jtable" + (t.call ? " called" : "") + (t.errors.length ? " has-errors" : ""),
        "data-match": t.match_id },
        el("h2", { text: matchTitle(t) }),
        el("p", { text: `${L.turn} ${t.turn} · ${t.turn_player || "-"} · seq ${t.last_seq}` +
                        ` · ${L.result}: ${t.result}` }),
        t.call ? el("div", { class: "call-box" },
          el("strong", { text: L.calls }),
          ...(t.call.entry ? [el("div", { class: "entry", text: t.call.entry })] : []),
          ...(t.call.reasons || []).map((r) => el("div", { class: "reason", text: r })),
          ...(t.call.reason ? [el("div", { class: "reason", text: t.call.reason })] : []))
          : null,
        el("p", { class: "errors", text: t.errors.length
          ? `${L.errors}: ` + t.errors.map((f) => `${f.seq} ${f.text}`).join("; ")
          : L.no_errors }),
        viewerLink(t), rulingForm(t))));
      document.body.dataset.called = tables.filter((t) => t.call).map((t) => t.match_id)
        .join(" ");
      document.body.dataset.ready = "1";
    }
    render(DATA.state);
    live(q("/api/judge/stream", { token: token }), render);
  }

  // ---------------------------------------------------------------- the organiser
  function qr(svg) {
    // The QR code of a link: SVG the server made from the link alone (segno).
    const box = el("div", { class: "qr" });
    box.innerHTML = svg;
    return box;
  }
  function organiserPage() {
    const token = DATA.token;
    const out = el("div", { id: "out", class: "answer" });
    const events = el("ul", { id: "events" });
    const detail = el("div", { id: "event" });
    const f = (name, attrs) => el("label", {}, L[name] || name,
                                  el("input", { name: name, ...(attrs || {}) }));
    const evForm = el("form", { id: "new-event", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(evForm);
      try {
        const a = await api("/api/organiser/events", token, {
          event_id: d.get("event_id"), name: d.get("name"), rules: d.get("rules"),
          format: d.get("format") || null });
        out.replaceChildren(el("p", { text: L.judge_link }),
                            el("a", { id: "judge-link", href: a.link, text: a.link }), qr(a.qr));
        DATA.events.push(a.event);
        showEvents();
        openEvent(a.event.event_id);
      } catch (err) { out.textContent = err.message; }
    } }, el("h2", { text: L.new_event }), f("event_id", { required: true }),
      f("name", { required: true }), f("rules", { value: "blackpoker/9.0", required: true }),
      f("format"), el("button", { type: "submit", text: L.create }));
    app.append(el("header", {}, el("h1", { text: L.organiser_title }), langLink()),
               out, el("h2", { text: L.events }), events, evForm, detail);
    function showEvents() {
      events.replaceChildren(...DATA.events.map((e) => el("li", {},
        el("button", { type: "button", "data-event": e.event_id, text: `${e.name} (${e.rules})`,
                       onclick: () => openEvent(e.event_id) }))));
    }
    async function openEvent(id) {
      const ev = await api(`/api/organiser/events/${encodeURIComponent(id)}`, token);
      const tForm = el("form", { id: "new-table", onsubmit: async (e) => {
        e.preventDefault();
        const d = new FormData(tForm);
        let header = null;
        try {
          if (String(d.get("header") || "").trim()) header = JSON.parse(d.get("header"));
          const a = await api("/api/organiser/tables", token, {
            event_id: id, round: d.get("round"), table: d.get("table"),
            players: String(d.get("players")).split(/[\n,]/).map((s) => s.trim())
              .filter(Boolean), header: header });
          out.replaceChildren(el("p", { text: `${a.table.match_id}: ${L.scorekeeper_link}` }),
                              el("a", { class: "table-link", href: a.link, text: a.link }),
                              qr(a.qr));
          openEvent(id);
        } catch (err) { out.textContent = err.message; }
      } }, el("h3", { text: L.new_table }), f("round", { value: "1", required: true }),
        f("table", { required: true }),
        el("label", {}, L.players, el("textarea", { name: "players", rows: "2",
                                                    required: true })),
        el("label", {}, L.header, el("textarea", { name: "header", rows: "2" })),
        el("button", { type: "submit", text: L.create }));
      const report = el("div", { id: "report" });
      const dl = (what, label) => el("a", {
        href: q(`/api/organiser/events/${encodeURIComponent(id)}/download/${what}`,
                { token: token }), download: "", text: L[label] });
      detail.replaceChildren(
        el("h2", { text: `${ev.event.name} · ${L.tables}` }),
        el("ul", { class: "tables" }, ...ev.tables.map((t) => el("li", {},
          `${L.round} ${t.round} · ${L.table} ${t.table} · ${t.players.join(" v ")} · `,
          el("a", { href: q(`/watch/${encodeURIComponent(t.match_id)}`, {}), text: L.watch }),
          " ",
          el("button", { type: "button", text: L.reissue, onclick: async () => {
            const a = await api("/api/organiser/reissue", token,
                                { event_id: id, match_id: t.match_id });
            out.replaceChildren(el("p", { text: `${t.match_id}: ${L.scorekeeper_link}` }),
                                el("a", { class: "table-link", href: a.link, text: a.link }),
                                qr(a.qr));
          } })))),
        tForm,
        el("h2", { text: L.report }),
        el("button", { id: "refresh-report", type: "button", text: L.refresh,
                       onclick: () => showReport(id, report) }),
        report,
        el("h2", { text: L.downloads }),
        el("p", {}, dl("logs.zip", "logs_zip"), " · ", dl("matches.parquet", "matches_parquet"),
           " · ", dl("findings.parquet", "findings_parquet")));
    }
    async function showReport(id, box) {
      box.textContent = L.sending;
      const r = await api(`/api/organiser/events/${encodeURIComponent(id)}/report`, token);
      const head = ["player", "played", "won", "lost", "drawn", "undecided", "under_review"];
      const table = el("table", { id: "standings" },
        el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { text: L[h] })))),
        el("tbody", {}, ...r.standings.map((s) => el("tr", {},
          ...head.map((h) => el("td", { text: Array.isArray(s[h]) ? s[h].join(", ")
                                                                  : String(s[h]) }))))));
      const charts = el("div", { class: "charts" });
      // SVG drawn by the server, every text escaped there (serve/report.py).
      charts.innerHTML = r.charts.join("");
      box.replaceChildren(el("h3", { text: L.standings }),
                          r.standings.length ? table : el("p", { text: L.no_data }), charts);
      document.body.dataset.report = "1";
    }
    showEvents();
    document.body.dataset.ready = "1";
  }

  // ---------------------------------------------------------------- the home page
  function homePage() {
    app.append(el("header", {}, el("h1", { text: "coreflow" }), langLink()),
               el("h2", { text: L.events }));
    if (!DATA.events.length) app.append(el("p", { text: L.no_events }));
    for (const e of DATA.events) {
      app.append(el("h3", { text: `${e.name} (${e.rules})` }),
        el("ul", {}, ...e.tables.map((t) => el("li", {}, el("a", {
          href: q(`/watch/${encodeURIComponent(t.match_id)}`, {}),
          text: `${L.round} ${t.round} · ${L.table} ${t.table} · ${t.players.join(" v ")}`,
        })))));
    }
    document.body.dataset.ready = "1";
  }

  function errorPage() {
    app.append(el("header", {}, el("h1", { text: "coreflow" }), langLink()),
               el("p", { id: "error", class: "answer", text: DATA.error }));
    document.body.dataset.ready = "1";
  }

  ({ table: tablePage, watch: watchPage, judge: judgePage, organiser: organiserPage,
     home: homePage, error: errorPage })[DATA.page]();
})();
