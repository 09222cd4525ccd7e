// The one replay player for every game. A game's presenter (games/<game>/presenter.py) sends
// frames made of a few widget kinds; this file draws them and steps through them: play/pause,
// step, scrub, speed, keyboard, a link to any moment (#frame=N). While a match runs, htmx swaps
// in the page's head every 2 s with the new frames (#replay-data); the player appends them and
// keeps whatever the person is looking at (it follows along only when they are at the end).
(() => {
  "use strict";

  const PIECES = {
    K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙",
    k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟",
  };
  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const PIPS = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function card(code) {
    const text = String(code);
    if (text === "??") return el("span", "pcard back", "🂠");
    const match = /^([2-9TJQKA])([shdc])$/.exec(text);
    if (!match) return el("span", "pcard plain", text);
    const rank = match[1] === "T" ? "10" : match[1];
    const node = el("span", `pcard suit-${match[2]}`, rank + SUITS[match[2]]);
    node.title = text;
    return node;
  }

  function cardRow(cards) {
    const row = el("span", "cards");
    (cards || []).forEach((c) => row.append(card(c)));
    return row;
  }

  function facts(items) {
    const list = el("dl", "facts");
    (items || []).forEach(([label, value]) => {
      list.append(el("dt", "", label), el("dd", "", value));
    });
    return list;
  }

  const WIDGETS = {
    board(w) {
      const squares = [];
      for (const rank of String(w.fen || "").split("/")) {
        for (const ch of rank) {
          if (/\d/.test(ch)) for (let i = 0; i < Number(ch); i += 1) squares.push("");
          else squares.push(ch);
        }
      }
      const last = w.lastmove ? [w.lastmove.slice(0, 2), w.lastmove.slice(2, 4)] : [];
      const grid = el("div", "chessboard");
      for (let r = 0; r < 8; r += 1) {
        for (let f = 0; f < 8; f += 1) {
          const row = w.flip ? 7 - r : r;
          const file = w.flip ? 7 - f : f;
          const name = "abcdefgh"[file] + String(8 - row);
          const piece = squares[row * 8 + file] || "";
          const sq = el("span", `sq ${(row + file) % 2 ? "dark" : "light"}`, PIECES[piece] || "");
          if (last.includes(name)) sq.classList.add("last");
          if (piece) sq.classList.add(piece === piece.toUpperCase() ? "white" : "black");
          sq.dataset.square = name;
          grid.append(sq);
        }
      }
      grid.dataset.flipped = w.flip ? "1" : "0";
      return grid;
    },
    seats(w) {
      const box = el("div", "seats");
      (w.seats || []).forEach((s) => {
        const seat = el("div", `seat${s.active ? " active" : ""}`);
        seat.append(el("strong", "", s.name));
        if (s.cards) seat.append(cardRow(s.cards));
        if (s.dice) seat.append(WIDGETS.dice({ dice: s.dice }));
        if (s.facts) seat.append(facts(s.facts));
        box.append(seat);
      });
      return box;
    },
    cards(w) {
      const box = el("div", "cards-widget");
      if (w.label) box.append(el("span", "label", w.label));
      box.append((w.cards || []).length ? cardRow(w.cards) : el("span", "muted", "(none)"));
      return box;
    },
    dice(w) {
      const box = el("div", "dice-widget");
      if (w.label) box.append(el("span", "label", w.label));
      (w.dice || []).forEach((d) => {
        const die = el("span", "die", PIPS[d] || "?");
        die.title = d ? String(d) : "hidden";
        box.append(die);
      });
      return box;
    },
    chat(w) {
      const box = el("div", "chat");
      if (!(w.messages || []).length) box.append(el("p", "muted", "(no messages yet)"));
      (w.messages || []).forEach((m) => {
        const bubble = el("div", `bubble seat-${m.seat}`);
        bubble.append(el("span", "who", m.who), el("span", "text", m.text));
        box.append(bubble);
      });
      return box;
    },
    facts(w) {
      if (!w.title) return facts(w.items);
      const box = el("div", "facts-widget");
      box.append(el("h3", "", w.title), facts(w.items));
      return box;
    },
    table(w) {
      const table = el("table", "widget-table");
      const head = el("tr");
      (w.head || []).forEach((h) => head.append(el("th", "", h)));
      const thead = el("thead");
      thead.append(head);
      table.append(thead);
      const body = el("tbody");
      (w.rows || []).forEach((r) => {
        const row = el("tr");
        r.forEach((c) => row.append(el("td", "", c)));
        body.append(row);
      });
      table.append(body);
      return table;
    },
    lines(w) {
      const box = el("div", "lines");
      if (w.title) box.append(el("h3", "", w.title));
      const list = el("ul");
      (w.lines || []).forEach((l) => list.append(el("li", "", l)));
      box.append(list);
      return box;
    },
  };

  class Player {
    constructor(root, data) {
      this.root = root;
      this.frames = [];
      this.at = 0;
      this.timer = null;
      const q = (sel) => root.querySelector(sel);
      this.ui = {
        stage: q("[data-stage]"), label: q("[data-frame-label]"), position: q("[data-position]"),
        scrub: q("[data-scrub]"), play: q("[data-play]"), speed: q("[data-speed]"),
        list: q("[data-frame-list]"), link: q("[data-link]"), downloads: q("[data-downloads]"),
        summary: q("[data-summary]"),
      };
      q("[data-first]").addEventListener("click", () => this.show(0));
      q("[data-prev]").addEventListener("click", () => this.show(this.at - 1));
      q("[data-next]").addEventListener("click", () => this.show(this.at + 1));
      q("[data-last]").addEventListener("click", () => this.show(this.frames.length - 1));
      this.ui.play.addEventListener("click", () => this.toggle());
      this.ui.scrub.addEventListener("input", () => this.show(Number(this.ui.scrub.value) - 1));
      this.ui.speed.addEventListener("change", () => { if (this.timer) { this.pause(); this.play(); } });
      this.ui.list.addEventListener("click", (e) => {
        const item = e.target.closest("li[data-index]");
        if (item) this.show(Number(item.dataset.index));
      });
      document.addEventListener("keydown", (e) => this.key(e));
      this.load(data, true);
      // A link to a moment opens there; a live match opens at its latest move; a replay at 1.
      const wanted = /frame=(\d+)/.exec(window.location.hash);
      const live = root.dataset.live === "1";
      this.show(wanted ? Number(wanted[1]) - 1 : live ? this.frames.length - 1 : 0);
    }

    // Frames from data.start on replace what the player had from there (the last may grow).
    load(data, initial = false) {
      const atEnd = this.at >= this.frames.length - 1;
      const fresh = (data.frames || []).map(([round, label, seq, ids]) => ({
        round, label, seq, widgets: ids.map((i) => data.widgets[i]),
      }));
      this.frames.length = Math.min(this.frames.length, data.start || 0);
      this.frames.push(...fresh);
      this.ui.scrub.max = String(Math.max(1, this.frames.length));
      this.renderList(data.start || 0);
      this.renderExtras(data);
      if (initial) return;
      if (atEnd && !this.timer) this.show(this.frames.length - 1);
      else this.show(this.at, (data.start || 0) <= this.at);
    }

    renderList(from) {
      const items = Array.from(this.ui.list.children);
      items.slice(from).forEach((li) => li.remove());
      let lastRound = from > 0 ? this.frames[from - 1].round : undefined;
      for (let i = from; i < this.frames.length; i += 1) {
        const f = this.frames[i];
        const li = el("li", f.round !== lastRound ? "new-round" : "", f.label);
        li.dataset.index = String(i);
        lastRound = f.round;
        this.ui.list.append(li);
      }
    }

    renderExtras(data) {
      this.ui.summary.replaceChildren();
      (data.summary || []).forEach(([label, value]) => {
        this.ui.summary.append(el("dt", "", label), el("dd", "", value));
      });
      this.ui.downloads.replaceChildren();
      (data.downloads || []).forEach((d) => {
        const a = el("a", "download", `download ${d.filename}`);
        a.href = URL.createObjectURL(new Blob([d.text], { type: d.mime }));
        a.download = d.filename;
        this.ui.downloads.append(a);
      });
    }

    show(index, redraw = true) {
      const count = this.frames.length;
      const was = this.at;
      this.at = Math.max(0, Math.min(count - 1, index));
      this.ui.position.textContent = `${count ? this.at + 1 : 0} / ${count}`;
      this.ui.scrub.value = String(this.at + 1);
      if (!count) {
        this.ui.label.textContent = "Nothing has been played yet.";
        return;
      }
      const frame = this.frames[this.at];
      if (redraw || was !== this.at) {
        this.ui.stage.replaceChildren(
          ...frame.widgets.map((w) => (WIDGETS[w.kind] || WIDGETS.facts)(w)),
        );
      }
      this.ui.label.textContent = frame.label;
      this.ui.link.href = `#frame=${this.at + 1}`;
      this.ui.list.querySelectorAll("li.current").forEach((li) => li.classList.remove("current"));
      const item = this.ui.list.children[this.at];
      if (item) {
        item.classList.add("current");
        const list = this.ui.list;
        if (item.offsetTop < list.scrollTop || item.offsetTop > list.scrollTop + list.clientHeight - 20) {
          list.scrollTop = item.offsetTop - list.clientHeight / 2;
        }
      }
      if (this.timer && this.at >= count - 1) this.pause();
    }

    play() {
      if (this.at >= this.frames.length - 1) this.show(0);
      const delay = 1000 / Number(this.ui.speed.value || 1);
      this.timer = window.setInterval(() => this.show(this.at + 1), delay);
      this.ui.play.textContent = "⏸ pause";
      this.root.dataset.playing = "1";
    }

    pause() {
      window.clearInterval(this.timer);
      this.timer = null;
      this.ui.play.textContent = "▶ play";
      this.root.dataset.playing = "0";
    }

    toggle() {
      if (this.timer) this.pause();
      else this.play();
    }

    key(e) {
      const tag = (e.target.tagName || "").toLowerCase();
      if (["input", "select", "textarea"].includes(tag) && e.target !== this.ui.scrub) return;
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const moves = {
        ArrowLeft: () => this.show(this.at - 1),
        ArrowRight: () => this.show(this.at + 1),
        Home: () => this.show(0),
        End: () => this.show(this.frames.length - 1),
        " ": () => this.toggle(),
      };
      if (moves[e.key]) {
        e.preventDefault();
        moves[e.key]();
      }
    }
  }

  function readData() {
    const node = document.getElementById("replay-data");
    return node ? JSON.parse(node.textContent) : null;
  }

  function start() {
    const root = document.querySelector("[data-player]");
    const data = readData();
    if (!root || !data) return;
    const player = new Player(root, data);
    window.arenaPlayer = player;
    // The live head carries the new frames; nothing else on the page is swapped.
    let seen = document.getElementById("replay-data");
    document.body.addEventListener("htmx:afterSettle", () => {
      const node = document.getElementById("replay-data");
      if (node && node !== seen) {
        seen = node;
        player.load(JSON.parse(node.textContent));
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
