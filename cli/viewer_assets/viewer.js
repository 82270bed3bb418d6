// coreflow view: the match viewer's script (inline in the page; it fetches nothing).
//
// Everything shown comes from the page's JSON (cli/viewer_page.py): the boards after every
// line, the lines, the findings and how the game writes its cards. The script decides no
// rule; it draws. Every value from the log is set as text (textContent), never as markup.
// The page's own words are DATA.labels, in the page's language; in Japanese DATA.words
// gives the game's names (actions, characters, zones, board words: its edition data) and
// the speeds, timings and severities; a word it does not give is shown as the log has it.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("match-data").textContent);
  const L = DATA.labels;
  const M = DATA.match;
  const LINES = DATA.lines;
  const FINDINGS = DATA.findings;
  const CARDS = DATA.cards;
  const W = DATA.words;
  const PLAYERS = M.players;
  const SUITS = { "\u2660": "black", "\u2663": "black", "\u2665": "red", "\u2666": "red" };
  // Board keys every game has (cli/render.py's _BOARD_KEYS): any other scalar is the game's own.
  const BOARD_KEYS = new Set(["match_id", "rules", "seq", "turn", "turn_player", "chance",
    "passed", "stage", "buffer", "awaiting_resolution", "once_used", "players", "result",
    "findings", "view"]);
  const ZONES_SHOWN = new Set(["deck_count", "deck_known", "life_count", "hand_count",
    "hand_known", "graveyard", "fog", "field"]);
  const HEADS = ["character", "card", "ref"];

  // ------------------------------------------------------------------ small helpers
  function say(key, values) {
    return String(L[key]).replace(/\{(\w+)\}/g, function (m, k) {
      return values && Object.prototype.hasOwnProperty.call(values, k) ? String(values[k]) : m;
    });
  }
  // A label with one node put in place of its {name} (the player's name in bold).
  function sayAround(key, name, node) {
    const parts = String(L[key]).split("{" + name + "}");
    const box = document.createDocumentFragment();
    parts.forEach(function (part, i) {
      if (i > 0) box.appendChild(node.cloneNode(true));
      if (part) box.appendChild(document.createTextNode(part));
    });
    return box;
  }
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent) {
    for (let i = 1; i < arguments.length; i++) {
      const child = arguments[i];
      if (child === null || child === undefined) continue;
      parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return parent;
  }
  // A label by a count: ``one`` for 1, else ``many`` with {count} (and ``values``).
  function sayCount(one, many, n, values) {
    const all = Object.assign({ count: n }, values || {});
    return n === 1 ? say(one, all) : say(many, all);
  }
  // How many findings, errors and warnings, as the text report counts them: an error that
  // follows from another (caused_by) is counted apart, after the errors it follows from;
  // then the info findings (a correction's lines taken back), which the report leaves out.
  function findingCounts(list) {
    if (!list.length) return L.count_none;
    const errors = list.filter(function (f) { return f.severity === "error"; });
    const roots = errors.filter(function (f) { return f.caused_by === undefined; }).length;
    const more = errors.length - roots;
    const warnings = list.filter(function (f) { return f.severity === "warning"; }).length;
    let counts = sayCount("count_errors_one", "count_errors", roots);
    if (more) {
      counts += roots > 1 ? sayCount("count_more_one", "count_more", more)
        : sayCount("count_more_it_one", "count_more_it", more);
    }
    counts += L.comma + sayCount("count_warnings_one", "count_warnings", warnings);
    const infos = list.length - errors.length - warnings;  // said only when there are some
    if (infos) counts += L.comma + sayCount("count_infos_one", "count_infos", infos);
    return sayCount("count_findings_one", "count_findings", list.length, { counts: counts });
  }
  function words(key) { return String(key).replace(/_/g, " "); }
  function has(table, key) { return Object.prototype.hasOwnProperty.call(table, key); }
  // A board key (a zone, a flag) and a board value (a state, a kind) in the page's
  // language, an action by its name, a speed or timing, a severity.
  function nameOf(key) { return has(W.names, key) ? W.names[key] : words(key); }
  function valueOf(v) { return typeof v === "string" && has(W.names, v) ? W.names[v] : String(v); }
  function actionName(a) { return has(W.actions, a) ? W.actions[a] : String(a); }
  function speedWord(w) { return has(W.speeds, w) ? W.speeds[w] : String(w); }
  function severityWord(s) { return has(W.severities, s) ? W.severities[s] : String(s); }
  function isScalar(v) { return typeof v === "string" || typeof v === "number"; }
  // Suit symbols in a text (a finding's message) in their colour.
  function suited(text, cls) {
    const node = el("span", cls);
    const parts = String(text).split(/([\u2665\u2666])/);
    for (const part of parts) {
      if (part === "\u2665" || part === "\u2666") add(node, el("span", "red-suit", part));
      else if (part) add(node, part);
    }
    return node;
  }

  // ------------------------------------------------------------------ cards
  function split(shown) {
    const i = shown.indexOf(":");
    if (i > 0 && PLAYERS.indexOf(shown.slice(0, i)) >= 0) {
      return [shown.slice(0, i), shown.slice(i + 1)];
    }
    return ["", shown];
  }
  function looksLikeCard(raw) {
    const s = String(raw);
    return Object.prototype.hasOwnProperty.call(CARDS, s) || split(s)[0] !== "" || s === "?";
  }
  // A card as a card: rank and suit in the suit's colour, a back for a hidden card, a
  // plain card with its name for a game whose cards have names.
  function card(raw, showOwner) {
    const s = String(raw);
    const shown = Object.prototype.hasOwnProperty.call(CARDS, s) ? CARDS[s] : s;
    const [owner, face] = split(shown);
    const node = el("span", "card");
    node.title = shown;
    node.dataset.card = s;
    if (showOwner && owner) add(node, el("span", "owner", owner));
    if (face === "?" || face === "face down") {
      node.classList.add("back");
      node.title = face === "?" ? (owner ? owner + ": ?" : "?") : L.face_down;
      add(node, face === "?" ? "?" : "");
    } else if (Object.prototype.hasOwnProperty.call(SUITS, face.charAt(0)) && face.length > 1) {
      node.classList.add("suited", SUITS[face.charAt(0)]);
      add(node, el("span", "rank", face.slice(1)), el("span", "suit", face.charAt(0)));
    } else {
      node.classList.add("plain");
      add(node, face);
    }
    return node;
  }
  function cards(list, showOwner) {
    const box = el("span", "cards");
    if (!list || list.length === 0) return add(box, el("span", "empty", L.none));
    for (const c of list) add(box, card(c, showOwner));
    return box;
  }
  // A target or a value: a card when it names one, else a chip (a request id).
  function thing(v, showOwner) {
    if (typeof v === "string" && looksLikeCard(v)) return card(v, showOwner);
    return el("span", "chip", typeof v === "string" ? v : JSON.stringify(v));
  }

  // ------------------------------------------------------------------ the boards
  const B = DATA.boards;
  function boardAt(index) {
    const row = B.rows[index];
    const board = {};
    for (let c = 0; c < B.paths.length; c++) {
      if (row[c] < 0) continue;
      const path = B.paths[c];
      let at = board;
      for (let k = 0; k < path.length - 1; k++) {
        if (!at[path[k]]) at[path[k]] = {};
        at = at[path[k]];
      }
      const last = path[path.length - 1];
      const container = path[0] === "players" && path.length < 3;
      at[last] = container ? (at[last] || {}) : B.parts[row[c]];
    }
    return board;
  }

  // ------------------------------------------------------------------ the timeline
  function kind(line) {
    if (!line) return "other";
    if (line.type === "request") return "request";
    if (line.type === "pass") return "pass";
    if (line.type === "resolve") return "resolve";
    return "other";
  }
  function effectWords(e) {
    const bits = [e.op];
    for (const k of Object.keys(e)) {
      if (k === "op") continue;
      const v = e[k];
      bits.push(isScalar(v) ? String(v) : words(k) + " " + JSON.stringify(v));
    }
    return bits.join(" ");
  }
  function summary(entry) {
    const box = el("span", "what");
    if (entry.error !== undefined) return add(box, el("span", "type", L.malformed + ": "), entry.error);
    const line = entry.line;
    const who = line.player ? el("span", "who", line.player) : null;
    switch (line.type) {
      case "request": {
        add(box, el("span", "type", line.request + " "), who, " " + actionName(line.action));
        if (line.key_cards && line.key_cards.length) {
          add(box, " ");
          for (const c of line.key_cards) add(box, card(c, false));
        }
        if (line.targets && line.targets.length) {
          add(box, " \u2192 ");
          for (const t of line.targets) add(box, thing(t, true));
        }
        return box;
      }
      case "pass":
        return add(box, sayAround("passes_line", "player", who || el("span", "who", "?")));
      case "resolve": {
        add(box, el("span", "type", line.request + " "), line.result === "fizzled" ? L.fizzled : L.resolved);
        if (line.effects && line.effects.length) {
          add(box, " \u00b7 " + line.effects.map(effectWords).join("; "));
        }
        return box;
      }
      case "turn_started":
        return add(box, el("span", "type", L.turn + " " + line.turn + " "), who);
      default: {
        add(box, el("span", "type", words(line.type) + " "));
        if (who) add(box, who, " ");
        const rest = Object.keys(line).filter(function (k) {
          return ["seq", "type", "player"].indexOf(k) < 0;
        });
        add(box, rest.map(function (k) {
          const v = line[k];
          return words(k) + " " + (isScalar(v) ? String(v) : JSON.stringify(v));
        }).join(" \u00b7 "));
        return box;
      }
    }
  }
  // The first line of each seq: a finding is about it (a seq written twice is one line).
  const firstOfSeq = new Map();
  LINES.forEach(function (e, i) { if (!firstOfSeq.has(e.seq)) firstOfSeq.set(e.seq, i); });
  const findingsAt = new Map();
  for (const f of FINDINGS) {
    if (!findingsAt.has(f.seq)) findingsAt.set(f.seq, []);
    findingsAt.get(f.seq).push(f);
  }
  // The turn a line was played in: the turn of the board before it. So the line that ends a
  // turn (the End's resolution, after which the rules start the next) is the turn's last,
  // and the next turn opens with its start line, or, in a log that leaves it out, with the
  // first line after. The lines before the first turn (turn 0, no turn player) have none.
  function column(name) {
    return B.paths.findIndex(function (p) { return p.length === 1 && p[0] === name; });
  }
  const TURN_COLUMN = column("turn");
  const TURN_PLAYER_COLUMN = column("turn_player");
  function valueAt(index, c) {
    const i = c < 0 || index < 0 ? -1 : B.rows[index][c];
    return i < 0 || B.parts[i] === undefined ? null : B.parts[i];
  }
  function turnBefore(index) {
    const turn = valueAt(index - 1, TURN_COLUMN);
    return typeof turn === "number" && turn > 0 && valueAt(index - 1, TURN_PLAYER_COLUMN) !== null
      ? turn : null;
  }
  const rows = [];
  const groups = [];  // {turn, player, first, last, box, head}: the lines of one turn
  const groupOf = [];  // line index -> its group
  const findingRows = [];  // the lines a finding is about, in order
  let tools = null;
  function markOf(here) {
    const level = here.some(function (f) { return f.severity === "error"; }) ? "error"
      : here.some(function (f) { return f.severity === "warning"; }) ? "warning" : "info";
    return { level: level, sign: { error: "\u25cf", warning: "\u25b2", info: "\u25cb" }[level] };
  }
  function groupHead(g, lines, here) {
    const head = el("div", "turn-head");
    head.dataset.turn = g.turn === null ? "" : String(g.turn);
    head.title = L.fold;
    add(head, el("span", "fold", "\u25be"),
        el("span", "name", g.turn === null ? L.before_turns
          : say("turn_head", { turn: g.turn, player: g.player === null ? "?" : g.player })),
        el("span", "count", sayCount("lines_one", "lines", lines)));
    for (const level of ["error", "warning"]) {
      const n = here.filter(function (f) { return f.severity === level; }).length;
      if (n) add(head, el("span", "mark " + level, (level === "error" ? "\u25cf" : "\u25b2") + n));
    }
    head.addEventListener("click", function () { fold(g, !g.box.classList.contains("folded")); });
    return head;
  }
  function buildTools(nav) {
    tools = el("div", "tools");
    tools.id = "tools";
    add(tools, el("h2", null, L.timeline));
    const bar = el("div", "bar");
    const previous = el("button", null, L.finding_previous);
    previous.id = "previous-finding";
    previous.type = "button";
    previous.addEventListener("click", function () { toFinding(-1); nav.focus(); });
    const next = el("button", null, L.finding_next);
    next.id = "next-finding";
    next.type = "button";
    next.addEventListener("click", function () { toFinding(1); nav.focus(); });
    const told = el("span", "note");
    told.id = "finding-message";
    add(bar, previous, next, told);
    const derived = LINES.filter(function (e) { return e.derived; }).length;
    const hide = el("input");
    hide.type = "checkbox";
    hide.id = "hide-derived";
    hide.addEventListener("change", function () { hideDerived(hide.checked); nav.focus(); });
    const hideLabel = add(el("label", "check"), hide, " " + say("hide_derived", { count: derived }));
    hideLabel.title = L.derived;
    const form = el("form", "turn-form");
    form.id = "go-turn";
    const input = el("input");
    input.id = "turn-input";
    input.type = "number";
    input.min = "0";
    input.step = "1";
    const turns = groups.filter(function (g) { return g.turn !== null; });
    if (turns.length) {
      const first = turns[0].turn;
      const last = turns[turns.length - 1].turn;
      input.placeholder = first === last ? String(first) : first + "\u2013" + last;
    }
    const go = el("button", null, L.go);
    go.type = "submit";
    const turnTold = el("span", "note");
    turnTold.id = "turn-message";
    add(form, add(el("label"), L.go_turn + " ", input), " ", go, " ", turnTold);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      toTurn(input.value);
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { event.preventDefault(); nav.focus(); }
    });
    add(tools, bar, add(el("div", "bar"), hideLabel, form));
    nav.appendChild(tools);
  }
  function buildTimeline() {
    const nav = document.getElementById("timeline");
    LINES.forEach(function (entry, index) {
      const turn = turnBefore(index);
      const last = groups[groups.length - 1];
      if (!last || last.turn !== turn) {
        groups.push({ turn: turn, player: valueAt(index - 1, TURN_PLAYER_COLUMN), first: index,
                      last: index, box: null, head: null });
      } else {
        last.last = index;
      }
      groupOf.push(groups[groups.length - 1]);
    });
    buildTools(nav);
    for (const g of groups) {
      g.box = el("div", "turn");
      g.box.dataset.turn = g.turn === null ? "" : String(g.turn);
      const here = FINDINGS.filter(function (f) {
        const i = firstOfSeq.get(f.seq);
        return i !== undefined && i >= g.first && i <= g.last;
      });
      g.head = groupHead(g, g.last - g.first + 1, here);
      add(g.box, g.head);
      nav.appendChild(g.box);
    }
    LINES.forEach(function (entry, index) {
      const row = el("div", "tl " + kind(entry.line));
      row.dataset.index = String(index);
      row.dataset.seq = String(entry.seq);
      if (entry.taken_back) { row.classList.add("taken"); row.title = L.taken_back; }
      if (entry.derived) { row.classList.add("derived"); row.title = L.derived; }
      const here = findingsAt.get(entry.seq) || [];
      const first = firstOfSeq.get(entry.seq) === index;
      const mark = el("span", "mark");
      if (first && here.length) {
        const m = markOf(here);
        mark.classList.add(m.level);
        mark.textContent = m.sign;
        mark.title = here.map(function (f) { return f.code; }).join(", ");
        row.classList.add("has-finding");
        findingRows.push(index);
      }
      add(row, el("span", "seq", entry.seq), mark, summary(entry));
      row.addEventListener("click", function () { select(index); });
      rows.push(row);
      groupOf[index].box.appendChild(row);
    });
    fitTools();
    // The tools grow when a message wraps onto a line of its own, or the window narrows.
    if (window.ResizeObserver) new ResizeObserver(fitTools).observe(tools);
    else window.addEventListener("resize", fitTools);
  }
  // The timeline keeps a line it scrolls to below its sticky tools and turn heading.
  function fitTools() {
    const nav = document.getElementById("timeline");
    const head = groups.length ? groups[0].head.offsetHeight : 0;
    nav.style.setProperty("--tools-height", tools.offsetHeight + "px");
    nav.style.scrollPaddingTop = (tools.offsetHeight + head + 2) + "px";
  }
  function fold(g, folded) {
    g.box.classList.toggle("folded", folded);
    g.head.querySelector(".fold").textContent = folded ? "\u25b8" : "\u25be";
  }
  function hideDerived(on) {
    document.getElementById("hide-derived").checked = on;
    document.getElementById("timeline").classList.toggle("hide-derived", on);
    document.body.dataset.hideDerived = on ? "1" : "";
    if (current >= 0) rows[current].scrollIntoView({ block: "nearest" });
  }
  // A line the timeline shows now (the selected line always shows).
  function shown(index) { return index === current || rows[index].offsetParent !== null; }
  function stepFrom(index, direction) {
    for (let i = index + direction; i >= 0 && i < rows.length; i += direction) {
      if (shown(i)) return i;
    }
    return index >= 0 && index < rows.length ? index : Math.max(0, Math.min(rows.length - 1, index));
  }
  function toFinding(direction) {
    const told = document.getElementById("finding-message");
    const found = direction > 0 ? findingRows.find(function (i) { return i > current; })
      : findingRows.slice().reverse().find(function (i) { return i < current; });
    if (found === undefined) {
      told.textContent = direction > 0 ? L.finding_none_after : L.finding_none_before;
      return;
    }
    told.textContent = "";
    select(found, "center");
  }
  function toTurn(value) {
    const told = document.getElementById("turn-message");
    const wanted = parseInt(String(value), 10);
    const g = groups.find(function (x) { return x.turn !== null && x.turn === wanted; });
    if (!g) {
      const turns = groups.filter(function (x) { return x.turn !== null; });
      told.textContent = say("turn_none", {
        turn: isNaN(wanted) ? String(value) : wanted,
        first: turns.length ? turns[0].turn : L.none,
        last: turns.length ? turns[turns.length - 1].turn : L.none });
      return;
    }
    told.textContent = "";
    fold(g, false);
    let to = g.first;
    for (let i = g.first; i <= g.last; i++) if (rows[i].offsetParent !== null) { to = i; break; }
    select(to, "start");
    document.getElementById("timeline").focus();
  }

  // ------------------------------------------------------------------ the board
  function request(r, top) {
    const box = el("div", "req" + (top ? " top" : ""));
    box.dataset.request = r.request;
    add(box, el("span", "id", r.request), el("span", null, actionName(r.action)),
        el("span", "who", r.controller), el("span", "speed", speedWord(r.speed) + " " + speedWord(r.timing)));
    if (r.triggered) add(box, el("span", "speed", say("triggered_by", { source: r.source || "?" })));
    if (r.key_cards && r.key_cards.length) add(box, el("span", "speed", L.key), cards(r.key_cards, false));
    if (r.targets && r.targets.length) {
      const t = el("span", "cards");
      for (const x of r.targets) add(t, thing(x, true));
      add(box, el("span", "speed", L.targets), t);
    }
    return box;
  }
  function count(n) {
    if (n === null || n === undefined) return L.unknown;
    return n === 1 ? L.one_card : say("cards", { count: n });
  }
  function zone(label, content) {
    return add(el("div", "zone"), el("span", "label", label), content);
  }
  function counted(n, known) {
    const box = el("span", "cards");
    add(box, el("span", null, count(n)));
    if (known && known.length) add(box, el("span", "note", " " + L.known + ":"), cards(known, false));
    return box;
  }
  function item(it) {
    const box = el("div", "char");
    const head = HEADS.find(function (k) { return typeof it[k] === "string"; });
    const about = [];
    for (const k of Object.keys(it)) {
      const v = it[k];
      if (HEADS.indexOf(k) >= 0 || k === "cards" || k === "size_steps" || v === null || v === false) continue;
      if (k === "size") about.push(valueOf(M.size_word) + " " + v);
      else if (k === "face_down") about.push(L.face_down);
      else if (k === "entered_turn") about.push(say("entered_turn", { turn: v }));
      else if (v === true) about.push(nameOf(k));
      else if (k === "state" || k === "kind") about.push(valueOf(v));
      else if (isScalar(v)) about.push(nameOf(k) + " " + valueOf(v));
      else if (Array.isArray(v) && v.every(function (x) { return typeof x === "string"; })) {
        about.push(nameOf(k) + " " + v.map(function (x) { return CARDS[x] || x; }).join(" "));
      }
    }
    const row = el("span", "cards");
    if (Array.isArray(it.cards) && it.cards.length) {
      for (const c of it.cards) add(row, card(c, false));
    } else if (head) {
      add(row, card(it[head], false));
    }
    add(box, row, " ", el("span", "about", about.join(", ")));
    if (Array.isArray(it.size_steps) && it.size_steps.length) {
      add(box, el("div", "about", valueOf(M.size_word) + ": " + it.size_steps.join("; ")));
    }
    return box;
  }
  function player(name, zones, board) {
    const box = el("div", "panel player");
    box.dataset.player = name;
    const h = add(el("h3"), el("span", null, name));
    if (board.turn_player === name) add(h, el("span", "badge turn", L.turn_player));
    if (board.chance === name) add(h, el("span", "badge chance", L.holds_chance));
    if (board.turn_player !== null && board.turn_player !== undefined) {
      const passed = (board.passed || []).indexOf(name) >= 0;
      add(h, el("span", "badge" + (passed ? " passed" : ""), passed ? "\u2713 " + L.passed : L.not_passed));
    }
    add(box, h);
    if ("deck_count" in zones || "life_count" in zones) {
      add(box, zone(nameOf("life_count" in zones ? "life" : "deck"), counted(zones.deck_count, zones.deck_known)));
    }
    if ("hand_count" in zones) add(box, zone(nameOf("hand"), counted(zones.hand_count, zones.hand_known)));
    if ("graveyard" in zones) add(box, zone(nameOf("graveyard"), cards(zones.graveyard, false)));
    if ("fog" in zones) add(box, zone(nameOf("fog"), cards(zones.fog, false)));
    for (const key of Object.keys(zones)) {
      const v = zones[key];
      if (ZONES_SHOWN.has(key) || v === null) continue;
      if (typeof v === "boolean") {  // a zone's state (a frame's pack opened)
        add(box, zone(nameOf(key), el("span", null, v ? L.yes : L.no)));
      } else if (Array.isArray(v) && v.every(function (x) { return typeof x === "string"; })) {
        add(box, zone(nameOf(key), cards(v, false)));
      } else if (Array.isArray(v)) {
        const list = el("div");
        if (!v.length) add(list, el("span", "empty", L.none));
        for (const it of v) if (it && typeof it === "object") add(list, item(it));
        add(box, zone(nameOf(key), list));
      } else if (isScalar(v)) {
        add(box, zone(nameOf(key), el("span", null, valueOf(v))));
      }
    }
    if (Array.isArray(zones.field)) {
      const list = el("div");
      if (!zones.field.length) add(list, el("span", "empty", L.none));
      for (const ch of zones.field) add(list, item(ch));
      add(box, zone(nameOf("field"), list));
    }
    return box;
  }
  function findingBox(f, jump) {
    const box = el("div", "finding " + f.severity + (jump ? " jump" : ""));
    box.dataset.code = f.code;
    box.dataset.seq = String(f.seq);
    add(box, el("span", "sev", severityWord(f.severity)), " ", el("span", "code", f.code), " ",
        el("span", "note", say("at_line", { seq: f.seq })));
    if (jump) {  // the list of all findings: one line each, a click goes to its line
      if (f.meaning !== undefined) add(box, " ", el("span", "meaning", f.meaning + ":"));
      add(box, " ", suited(f.message, "message"));
      box.addEventListener("click", function () { select(indexOfSeq(f.seq), "center"); });
      return box;
    }
    const dl = el("dl");
    if (f.meaning !== undefined) add(dl, el("dt", null, L.meaning), el("dd", "meaning", f.meaning));
    add(dl, el("dt", null, L.rule), add(el("dd"), el("b", null, f.rule + ": "), f.statement));
    add(dl, el("dt", null, L.finding), add(el("dd"), suited(f.message, "message")));
    if (f.expected !== undefined) {
      add(dl, el("dt", null, L.expected), add(el("dd"), suited(f.expected, "expected")));
      add(dl, el("dt", null, L.recorded), add(el("dd"), suited(f.actual, "actual")));
    }
    if (f.next !== undefined) add(dl, el("dt", null, L.next), add(el("dd", "next"), suited(f.next, "text")));
    if (f.caused_by !== undefined) {
      add(dl, el("dt", null, L.follows), el("dd", "follows", say("follows_text", f.caused_by)));
    }
    add(box, dl);
    return box;
  }
  function renderBoard(index) {
    const entry = LINES[index];
    const b = boardAt(index);
    const root = document.getElementById("board");
    root.textContent = "";
    const status = el("div", "status");
    status.id = "status";
    add(status, el("span", "after", say("board_after", { seq: entry.seq })));
    if (b.turn_player === null || b.turn_player === undefined) {
      add(status, el("span", "empty", L.not_started));
    } else {
      const chance = el("span", "chance", L.chance + ": " + b.chance);
      chance.id = "chance";
      chance.dataset.player = b.chance || "";
      const passed = el("span", null, L.passes + ": " + ((b.passed || []).join(", ") || L.none));
      passed.id = "passed";
      add(status, el("span", null, L.turn + " " + b.turn), el("span", null, L.turn_player + ": " + b.turn_player),
          chance, passed);
    }
    for (const k of Object.keys(b)) {
      if (!BOARD_KEYS.has(k) && isScalar(b[k])) add(status, el("span", null, nameOf(k) + " " + valueOf(b[k])));
    }
    if (M.view !== "judge") add(status, el("span", "note", say("seen_by", { viewer: M.view })));
    add(root, status);

    const top = el("div", "row");
    const stage = el("div", "panel grow");
    stage.id = "stage";
    add(stage, el("h2", null, L.stage));
    const stack = el("div", "stack");
    const reqs = b.stage || [];
    if (!reqs.length) add(stack, el("div", "empty", L.stage_empty));
    else {
      add(stack, el("div", "end", L.stage_top));
      for (let i = reqs.length - 1; i >= 0; i--) add(stack, request(reqs[i], i === reqs.length - 1));
      add(stack, el("div", "end", L.stage_bottom));
    }
    add(stage, stack);
    const buffer = el("div", "panel grow");
    buffer.id = "buffer";
    add(buffer, el("h2", null, L.buffer));
    const buf = el("div", "stack");
    if (!(b.buffer || []).length) add(buf, el("div", "empty", L.buffer_empty));
    for (const r of b.buffer || []) add(buf, request(r, false));
    add(buffer, buf);
    if (b.awaiting_resolution) add(buffer, el("div", "note", say("waiting", { request: b.awaiting_resolution })));
    const once = b.once_used || {};
    const used = Object.keys(once).map(function (p) { return p + ": " + once[p].map(actionName).join(", "); });
    if (used.length) add(buffer, el("div", "note", L.once_used + ": " + used.join("; ")));
    add(top, stage, buffer);
    add(root, top);

    const here = el("div", "panel");
    here.id = "findings-here";
    add(here, el("h2", null, L.findings_here));
    const mine = firstOfSeq.get(entry.seq) === index ? (findingsAt.get(entry.seq) || []) : [];
    if (!mine.length) add(here, el("div", "empty", L.no_findings_here));
    for (const f of mine) add(here, findingBox(f, false));
    const sofar = FINDINGS.filter(function (f) { return f.seq <= entry.seq; });
    const counted = el("div", "note", say("findings_so_far", { findings: findingCounts(sofar) }));
    counted.id = "findings-so-far";
    add(here, counted);
    add(root, here);

    const players = el("div", "players");
    players.id = "players";
    const zones = b.players || {};
    for (const name of Object.keys(zones)) add(players, player(name, zones[name], b));
    add(root, add(el("div", "row"), add(el("div", "grow"), players)));

    const all = el("div", "panel");
    all.id = "findings-all";
    add(all, el("h2", null, L.findings_all));
    if (!FINDINGS.length) add(all, el("div", "empty", L.no_findings));
    for (const f of FINDINGS) add(all, findingBox(f, true));
    if (FINDINGS.length) {
      const total = el("div", "note", say("findings_total", { findings: findingCounts(FINDINGS) }));
      total.id = "findings-total";
      add(all, total);
    }
    add(all, el("div", "note", L.result + ": " + M.result));
    for (const n of M.notes) add(all, el("div", "note", n));
    add(root, all);

    const detail = el("div", "panel");
    detail.id = "line";
    add(detail, el("h2", null, say("the_line", { seq: entry.seq }) + (entry.taken_back ? " (" + L.taken_back + ")" : "")));
    add(detail, el("pre", "line", entry.error !== undefined ? entry.error : JSON.stringify(entry.line)));
    add(root, detail);
  }

  // ------------------------------------------------------------------ selection
  let current = -1;
  function indexOfSeq(seq) {
    return firstOfSeq.has(seq) ? firstOfSeq.get(seq) : 0;
  }
  // Select a line: ``how`` scrolls it into the timeline (``nearest`` for a step, ``center``
  // or ``start`` for a jump), below the sticky tools and turn heading; a folded turn opens.
  function select(index, how) {
    index = Math.max(0, Math.min(LINES.length - 1, index));
    if (current >= 0) rows[current].classList.remove("selected");
    current = index;
    const row = rows[index];
    row.classList.add("selected");
    const g = groupOf[index];
    if (g.box.classList.contains("folded")) fold(g, false);
    row.scrollIntoView({ block: how || "nearest" });
    document.body.dataset.index = String(index);
    document.body.dataset.seq = String(LINES[index].seq);
    document.getElementById("previous-finding").disabled =
      !findingRows.some(function (i) { return i < index; });
    document.getElementById("next-finding").disabled =
      !findingRows.some(function (i) { return i > index; });
    document.getElementById("finding-message").textContent = "";
    renderBoard(index);
    if (history.replaceState) {
      try { history.replaceState(null, "", "#" + LINES[index].seq); } catch (e) { /* file: */ }
    }
  }
  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
    let to = null;
    switch (event.key) {
      case "ArrowRight": case "ArrowDown": case "j": to = stepFrom(current, 1); break;
      case "ArrowLeft": case "ArrowUp": case "k": to = stepFrom(current, -1); break;
      case "Home": to = stepFrom(-1, 1); break;
      case "End": to = stepFrom(LINES.length, -1); break;
      case "n": event.preventDefault(); toFinding(1); return;
      case "p": event.preventDefault(); toFinding(-1); return;
      case "d": event.preventDefault(); hideDerived(!document.getElementById("hide-derived").checked); return;
      case "t": {
        event.preventDefault();
        const input = document.getElementById("turn-input");
        input.focus();
        input.select();
        return;
      }
      default: return;
    }
    event.preventDefault();
    select(to);
  }

  function buildHead() {
    const head = document.getElementById("head");
    const viewText = M.view === "judge" ? L.view_judge
      : M.view === "spectator" ? L.view_spectator : say("view_player", { viewer: M.view });
    const source = M.source.log !== undefined ? L.source_log + " " + M.source.log
      : M.source.store !== undefined ? L.source_store + " " + M.source.store : "";
    add(head, el("h1", null, L.match + " " + M.match_id),
        el("span", "meta", M.game + " \u00b7 " + M.rules + " \u00b7 " + PLAYERS.join(" v ")),
        el("span", "meta", L.view + ": " + viewText),
        source ? el("span", "meta", source) : null,
        el("span", "meta", L.result + ": " + M.result),
        el("span", "keys", L.keys));
    document.title = L.match + " " + M.match_id + " \u00b7 " + L.title;
  }

  buildHead();
  buildTimeline();
  document.addEventListener("keydown", onKey);
  // OUT.html#11 opens at line 11 (and a new #seq typed in the address bar goes there).
  function fromHash() {
    const wanted = parseInt(String(location.hash).replace(/^#/, ""), 10);
    return isNaN(wanted) ? 0 : indexOfSeq(wanted);
  }
  window.addEventListener("hashchange", function () { select(fromHash(), "center"); });
  select(fromHash(), "center");
  document.getElementById("timeline").focus();
  document.body.dataset.ready = "1";
})();
