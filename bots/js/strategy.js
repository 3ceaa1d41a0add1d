'use strict';
/**
 * jsbot's hand evaluation and strategy. Pure functions, no gRPC: `decide(request)`
 * takes a mus.v1.DecisionRequest as decoded by @grpc/proto-loader (keepCase, enums as
 * strings, defaults, oneofs) and returns `{action}`, a mus.v1.Action object that is
 * always one of the request's legal_actions.
 *
 * Evaluation (docs/rules.md §1, §4): cards are reduced to natural rank indices 0 (as) .. 9
 * (rey). With 8 kings a 3 plays as a rey and a 2 as an as. Every one of the 715 rank
 * multisets of a 4-card hand is evaluated once at load time, for 8 and 4 kings, and
 * weighted by how many physical hands it stands for; `strength()` is then the fraction
 * of all hands a hand beats on a lance (ties count half), found by binary search.
 *
 * Strategy:
 * - mus: cut ("no hay mus") with a hand that is already good (31, duples, medias,
 *   pares with a strong grande, juego with pares, ...), else ask for mus;
 * - discard: try every legal discard and keep the one whose expected hand value over
 *   all possible replacements (the 36 cards we cannot see) is highest; the value
 *   favours grande (kings), chica (aces), pares and juego;
 * - betting: estimate the team's chance of winning the lance (own strength against
 *   the opponents still in it, a share for the partner, position), then open, raise,
 *   accept or decline by the expected stones; órdago only with a near-certain hand.
 */

// ----------------------------------------------------------------------------- cards

const RANK_INDEX = {
  RANK_AS: 0, RANK_DOS: 1, RANK_TRES: 2, RANK_CUATRO: 3, RANK_CINCO: 4,
  RANK_SEIS: 5, RANK_SIETE: 6, RANK_SOTA: 7, RANK_CABALLO: 8, RANK_REY: 9,
};
const AS = 0;
const SIETE = 6;
const REY = 9;

const EFFECTIVE = {
  8: [0, 0, 9, 3, 4, 5, 6, 7, 8, 9], // 3 -> rey, 2 -> as
  4: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
};
const POINTS = {
  8: [1, 1, 10, 4, 5, 6, 7, 10, 10, 10],
  4: [1, 2, 3, 4, 5, 6, 7, 10, 10, 10],
};
const JUEGO_ORDER = [31, 32, 40, 37, 36, 35, 34, 33]; // best to worst (docs/rules.md §4.4)
const JUEGO_RANK = new Map(JUEGO_ORDER.map((t, i) => [t, JUEGO_ORDER.length - i]));

const GRANDE = 0;
const CHICA = 1;
const PARES = 2;
const JUEGO = 3;
const PUNTO = 4;
const LANCE_INDEX = {
  LANCE_GRANDE: GRANDE, LANCE_CHICA: CHICA, LANCE_PARES: PARES,
  LANCE_JUEGO: JUEGO, LANCE_PUNTO: PUNTO,
};

/** Natural rank index 0..9 of a proto Card (rank as an enum name or number). */
function rankOf(card) {
  const r = card.rank;
  if (typeof r === 'number') return r - 1;
  const i = RANK_INDEX[r];
  if (i === undefined) throw new Error(`bad card rank ${r}`);
  return i;
}

function kingsOf(rules) {
  return rules && rules.kings === 4 ? 4 : 8;
}

// 3 bits per natural rank: the key of a multiset is the sum of its cards' weights.
const WEIGHT = Array.from({ length: 10 }, (_, r) => 2 ** (3 * r));
function countOf(key, r) {
  return Math.floor(key / WEIGHT[r]) % 8;
}

function binom(n, k) {
  if (k < 0 || k > n) return 0;
  let v = 1;
  for (let i = 0; i < k; i++) v = (v * (n - i)) / (i + 1);
  return Math.round(v);
}

/** All multisets of `size` natural ranks, as arrays of ranks (non-decreasing). */
function multisets(size) {
  const out = [];
  const cur = [];
  (function rec(start) {
    if (cur.length === size) { out.push(cur.slice()); return; }
    for (let r = start; r < 10; r++) { cur.push(r); rec(r); cur.pop(); }
  })(0);
  return out;
}

function computeValue(ranks, kings) {
  const eff = ranks.map((r) => EFFECTIVE[kings][r]);
  const high = eff.slice().sort((a, b) => b - a);
  const low = eff.slice().sort((a, b) => a - b);
  const grande = high[0] * 1000 + high[1] * 100 + high[2] * 10 + high[3];
  const chica = 9999 - (low[0] * 1000 + low[1] * 100 + low[2] * 10 + low[3]);
  const counts = new Map();
  for (const r of eff) counts.set(r, (counts.get(r) || 0) + 1);
  const pairs = [];
  let trio = -1;
  let quad = -1;
  for (const [r, n] of counts) {
    if (n === 2) pairs.push(r);
    else if (n === 3) trio = r;
    else if (n === 4) quad = r;
  }
  pairs.sort((a, b) => b - a);
  let cat = 0; let hi = 0; let lo = 0;
  if (quad >= 0) { cat = 3; hi = quad; lo = quad; }
  else if (pairs.length === 2) { cat = 3; hi = pairs[0]; lo = pairs[1]; }
  else if (trio >= 0) { cat = 2; hi = trio; }
  else if (pairs.length === 1) { cat = 1; hi = pairs[0]; }
  const paresKey = cat === 0 ? 0 : cat * 100 + hi * 10 + lo;
  const total = ranks.reduce((s, r) => s + POINTS[kings][r], 0);
  return {
    grande, chica, pares: cat, paresKey, total,
    juegoRank: JUEGO_RANK.get(total) || 0,
    kings: eff.filter((r) => r === REY).length,
    aces: eff.filter((r) => r === AS).length,
  };
}

function lanceKey(v, lance) {
  switch (lance) {
    case GRANDE: return v.grande;
    case CHICA: return v.chica;
    case PARES: return v.paresKey;
    case JUEGO: return v.juegoRank;
    default: return v.total;
  }
}

// Tables: per kings, multiset key -> value; per kings and lance, sorted keys with
// cumulative physical-hand counts.
const FOUR = multisets(4);
const COMBOS = new Map();
const VALUES = { 8: new Map(), 4: new Map() };
for (const ranks of FOUR) {
  const key = ranks.reduce((s, r) => s + WEIGHT[r], 0);
  let combos = 1;
  for (let r = 0; r < 10; r++) combos *= binom(4, countOf(key, r));
  COMBOS.set(key, combos);
  for (const kings of [8, 4]) VALUES[kings].set(key, computeValue(ranks, kings));
}

const STRENGTH = { 8: [], 4: [] };
for (const kings of [8, 4]) {
  for (let lance = 0; lance < 5; lance++) {
    const weights = new Map();
    for (const [key, v] of VALUES[kings]) {
      const k = lanceKey(v, lance);
      weights.set(k, (weights.get(k) || 0) + COMBOS.get(key));
    }
    const keys = [...weights.keys()].sort((a, b) => a - b);
    const cumulative = [];
    let acc = 0;
    for (const k of keys) { acc += weights.get(k); cumulative.push(acc); }
    STRENGTH[kings][lance] = { keys, cumulative };
  }
}

/** Fraction of all 4-card hands that `v` beats on `lance`, ties counting
 *  `tieShare` (half by default; 1 against a seat after us in turn order, since ties
 *  go to the seat closer to mano, 0 against one before us). For pares and juego with
 *  `amongHolders`, only hands that hold them are counted (and a hand without them
 *  gets 0). */
function strength(v, lance, kings, amongHolders = false, tieShare = 0.5) {
  const k = lanceKey(v, lance);
  const { keys, cumulative } = STRENGTH[kings][lance];
  let lo = 0; let hi = keys.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (keys[mid] < k) lo = mid + 1; else hi = mid; }
  const below = lo > 0 ? cumulative[lo - 1] : 0;
  const tie = lo < keys.length && keys[lo] === k ? cumulative[lo] - below : 0;
  const everyone = cumulative[cumulative.length - 1];
  if (amongHolders && (lance === PARES || lance === JUEGO)) {
    if (k === 0) return 0;
    const none = keys[0] === 0 ? cumulative[0] : 0;
    return (below - none + tie * tieShare) / (everyone - none);
  }
  return (below + tie * tieShare) / everyone;
}

function keyOfRanks(ranks) {
  return ranks.reduce((s, r) => s + WEIGHT[r], 0);
}

/** The evaluation of a hand given as proto Cards (or natural ranks). */
function evaluate(cards, kings) {
  const ranks = cards.map((c) => (typeof c === 'number' ? c : rankOf(c)));
  if (ranks.length !== 4) throw new Error(`a hand has 4 cards, got ${ranks.length}`);
  return VALUES[kings].get(keyOfRanks(ranks));
}

// Hand value used to choose discards: how good a hand is over the four lances, in
// rough stones. Precomputed per multiset.
function handUtility(v, kings) {
  const sg = strength(v, GRANDE, kings);
  const sc = strength(v, CHICA, kings);
  let u = 1.0 * sg + 0.8 * sc;
  if (v.pares) u += 0.45 * v.pares + 0.8 * strength(v, PARES, kings, true);
  if (v.total >= 31) u += v.total === 31 ? 2.2 : 1.0 + 0.5 * (v.juegoRank / 8);
  else u += 0.3 * strength(v, PUNTO, kings);
  return u;
}
const UTILITY = { 8: new Map(), 4: new Map() };
for (const kings of [8, 4]) {
  for (const [key, v] of VALUES[kings]) UTILITY[kings].set(key, handUtility(v, kings));
}
const DRAWS = [null, multisets(1), multisets(2), multisets(3), multisets(4)].map(
  (list) => list && list.map((ranks) => ({ ranks, key: keyOfRanks(ranks) })),
);

/** Expected utility of keeping `kept` (natural ranks) and drawing `k` cards from the
 *  unseen cards, where `avail[r]` unseen cards of rank r remain. */
function expectedUtility(kept, k, avail, kings) {
  const keptKey = keyOfRanks(kept);
  const table = UTILITY[kings];
  if (k === 0) return table.get(keptKey);
  let sum = 0;
  let weight = 0;
  for (const d of DRAWS[k]) {
    let w = 1;
    for (let r = 0; r < 10 && w > 0; r++) {
      const n = countOf(d.key, r);
      if (n) w *= binom(avail[r], n);
    }
    if (!w) continue;
    sum += w * table.get(keptKey + d.key);
    weight += w;
  }
  return weight ? sum / weight : table.get(keptKey);
}

// ----------------------------------------------------------------------------- actions

function kindOf(legal) {
  if (legal.kind) return legal.kind;
  for (const k of ['mus', 'no_mus', 'discard', 'paso', 'envido', 'quiero', 'no_quiero',
    'ordago', 'queremos', 'no_queremos']) {
    if (legal[k]) return k;
  }
  return undefined;
}

class Legal {
  constructor(list) {
    this.fixed = new Set();
    this.envido = null;
    this.discard = null;
    this.first = null;
    for (const la of list || []) {
      const kind = kindOf(la);
      if (!kind) continue;
      if (!this.first) this.first = { kind, value: la[kind] };
      if (kind === 'envido') this.envido = la.envido;
      else if (kind === 'discard') this.discard = la.discard;
      else this.fixed.add(kind);
    }
  }

  can(kind) {
    if (kind === 'envido') return this.envido !== null;
    if (kind === 'discard') return this.discard !== null;
    return this.fixed.has(kind);
  }

  /** An envido action of `amount` clamped into the legal range, or null. */
  envidoAction(amount) {
    if (!this.envido) return null;
    const min = Number(this.envido.min_amount) || 2;
    const max = Number(this.envido.max_amount) || 0;
    let a = Math.max(min, Math.round(amount));
    if (max > 0) a = Math.min(a, max);
    if (a < min) return null;
    return { envido: { amount: a } };
  }

  /** The first of `kinds` (fixed actions) that is legal, as an action, or null. */
  pick(...kinds) {
    for (const k of kinds) if (this.fixed.has(k)) return { [k]: {} };
    return null;
  }

  /** Some legal action, whatever it is: the last resort. */
  any() {
    const f = this.first;
    if (!f) return { paso: {} };
    if (f.kind === 'envido') return this.envidoAction(0);
    if (f.kind === 'discard') {
      const n = Math.max(1, Number(f.value.min_count) || 1);
      return { discard: { cards: f.value.cards.slice(0, n) } };
    }
    return { [f.kind]: {} };
  }
}

// ----------------------------------------------------------------------------- context

function teamOf(seat) {
  return seat % 2;
}

function context(req) {
  const rules = req.rules || {};
  const kings = kingsOf(rules);
  const players = Number(rules.players) || 4;
  const seat = Number(req.seat);
  const mano = Number(req.mano);
  const us = teamOf(seat);
  const scores = (req.scores || []).map(Number);
  const target = Number(req.target_points) || Number(rules.target_points) || 40;
  const history = req.history || [];
  const pos = (seat - mano + players) % players; // 0 = mano
  return {
    req, rules, kings, players, seat, mano, us, them: 1 - us, pos,
    ourScore: scores[us] || 0,
    theirScore: scores[1 - us] || 0,
    target,
    history,
    cards: req.cards || [],
    value: evaluate(req.cards || [], kings),
    legal: new Legal(req.legal_actions),
    juegoReal: rules.juego_real && rules.juego_real !== 'JUEGO_REAL_OFF'
      && rules.juego_real !== 'JUEGO_REAL_UNSPECIFIED' && rules.juego_real !== 0
      && rules.juego_real !== 1,
  };
}

function eventKind(e) {
  if (e.kind) return e.kind;
  for (const k of ['mus_call', 'discard', 'replacements', 'reshuffle', 'declaration',
    'lance_start', 'bet', 'deje', 'lance_end', 'signal']) {
    if (e[k]) return k;
  }
  return undefined;
}

/** Seats declared (by the referee) as holding pares or juego, per `lanceName`. */
function declared(ctx, lanceName) {
  const holders = new Map();
  for (const e of ctx.history) {
    if (eventKind(e) !== 'declaration') continue;
    const d = e.declaration;
    if (d.lance === lanceName) holders.set(Number(d.seat), Boolean(d.has));
  }
  return holders;
}

const SENA_HINTS = {
  SENA_DOS_REYES: [GRANDE], SENA_TRES_REYES: [GRANDE, PARES], SENA_CUATRO_REYES: [GRANDE, PARES],
  SENA_DOS_ASES: [CHICA], SENA_TRES_ASES: [CHICA, PARES], SENA_CUATRO_ASES: [CHICA, PARES],
  SENA_MEDIAS: [PARES], SENA_DUPLES: [PARES], SENA_TREINTA_Y_UNA: [JUEGO],
  SENA_JUEGO: [JUEGO], SENA_TREINTA: [PUNTO], SENA_VEINTINUEVE: [PUNTO],
  SENA_SOLOMILLO: [GRANDE, PARES, JUEGO], SENA_ENVIDAR_MAS: [GRANDE, CHICA, PARES, JUEGO, PUNTO],
};

/** Whether a partner showed strength in `lance`: a seña, or a bet in this lance. */
function partnerStrong(ctx, lance, lanceName) {
  for (const e of ctx.history) {
    const k = eventKind(e);
    if (k === 'signal') {
      const s = Number(e.signal.seat);
      if (s !== ctx.seat && teamOf(s) === ctx.us) {
        const hints = SENA_HINTS[e.signal.sena];
        if (hints && hints.includes(lance)) return true;
      }
    } else if (k === 'bet') {
      const b = e.bet;
      const s = Number(b.seat);
      if (s !== ctx.seat && teamOf(s) === ctx.us && b.lance === lanceName) {
        const a = kindOf(b.action || {});
        if (a === 'envido' || a === 'ordago') return true;
      }
    }
  }
  return false;
}

/** How strong a bettor's hand is assumed to be, as the lowest strength (share of hands
 *  beaten) it would bet with: an órdago or a re-raise says more than an opening bet. */
function bettorFloor(ctx, lanceName) {
  const bet = ctx.req.bet;
  if (!bet) return 0;
  if (bet.is_ordago) return 0.92;
  let bets = 0;
  for (const e of ctx.history) {
    if (eventKind(e) !== 'bet' || e.bet.lance !== lanceName) continue;
    const a = kindOf(e.bet.action || {});
    if (a === 'envido' || a === 'ordago') bets += 1;
  }
  return bets >= 2 ? 0.75 : 0.5;
}

/** Estimated chances that this seat's hand (`me`) and our team (`team`) win the
 *  lance being bet. Facing a bet, the bettor's hand is taken to be at least as strong
 *  as `bettorFloor`. */
function winChance(ctx, lance, lanceName) {
  const { kings, players, seat, mano, value } = ctx;
  const opponents = [];
  const partners = [];
  for (let s = 0; s < players; s++) {
    if (s === seat) continue;
    (teamOf(s) === ctx.us ? partners : opponents).push(s);
  }
  let activeOpp = opponents;
  let partnerIn = partners.length > 0;
  const among = lance === PARES || lance === JUEGO;
  if (among) {
    const holders = declared(ctx, lanceName);
    if (holders.size) {
      activeOpp = opponents.filter((s) => holders.get(s));
      partnerIn = partners.some((s) => holders.get(s));
    }
  }
  // Beat every opponent still in the lance (their hands taken as independent); a tie
  // goes to whoever is closer to mano.
  const ahead = strength(value, lance, kings, among, 1);
  const behind = strength(value, lance, kings, among, 0);
  const bettor = ctx.req.bet ? Number(ctx.req.bet.seat) : -1;
  const floor = bettorFloor(ctx, lanceName);
  // Without 31 real, a 31 loses only to a 31 closer to mano.
  const sure31 = lance === JUEGO && value.total === 31 && !ctx.juegoReal;
  let p = 1;
  for (const o of activeOpp) {
    const after = (o - mano + players) % players > ctx.pos;
    if (sure31 && after) continue;
    let f = after ? ahead : behind;
    if (o === bettor) f = Math.max(0, Math.min(1, (f - floor) / (1 - floor)));
    p *= f;
  }
  let q = 0;
  if (partnerIn) q = among ? 0.3 : 0.2;
  if (partnerIn && partnerStrong(ctx, lance, lanceName)) q = 0.55;
  return { me: p, team: Math.min(1, p + (1 - p) * q) };
}

// ----------------------------------------------------------------------------- phases

function decideMus(ctx) {
  const { value: v, kings, legal } = ctx;
  const sg = strength(v, GRANDE, kings);
  const sc = strength(v, CHICA, kings);
  const good = v.total === 31
    || v.pares >= 2
    || (v.pares && sg > 0.85)
    || (v.total >= 31 && v.pares > 0)
    || (v.total >= 31 && sg > 0.9)
    || (v.pares && sc > 0.93 && v.total === 32)
    || (v.kings >= 2 && v.total >= 31);
  if (good) return legal.pick('no_mus', 'mus');
  return legal.pick('mus', 'no_mus');
}

function decideDiscard(ctx) {
  const { legal, kings } = ctx;
  const range = legal.discard;
  if (!range) return null;
  const cards = range.cards || [];
  const ranks = cards.map(rankOf);
  const minCount = Math.max(1, Number(range.min_count) || 1);
  const maxCount = Math.min(cards.length, Number(range.max_count) || cards.length);
  // The unseen cards: the deck minus our hand (other seats' cards are unknown).
  const avail = new Array(10).fill(4);
  for (const r of ctx.cards.map(rankOf)) avail[r] -= 1;
  let best = null;
  let bestU = -Infinity;
  const n = cards.length;
  for (let mask = 1; mask < 1 << n; mask++) {
    let k = 0;
    for (let i = 0; i < n; i++) if (mask & (1 << i)) k++;
    if (k < minCount || k > maxCount) continue;
    const kept = ranks.filter((_, i) => !(mask & (1 << i)));
    if (kept.length + k !== 4) continue;
    // Prefer fewer cards thrown on equal value (tiny tie-break).
    const u = expectedUtility(kept, k, avail, kings) - 1e-6 * k;
    if (u > bestU) { bestU = u; best = mask; }
  }
  if (best === null) return null;
  return { discard: { cards: cards.filter((_, i) => best & (1 << i)) } };
}

function pareValueEstimate(lance) {
  return lance === PARES ? 1.5 : lance === JUEGO ? 2.3 : lance === PUNTO ? 1 : 0;
}

function decideBet(ctx) {
  const { req, legal } = ctx;
  const lanceName = req.lance;
  const lance = LANCE_INDEX[lanceName] !== undefined ? LANCE_INDEX[lanceName] : GRANDE;
  const { me, team: p } = winChance(ctx, lance, lanceName);
  const theyClose = ctx.theirScore >= ctx.target - 6;
  const bet = req.bet || null;

  if (!bet) { // opening: paso, envido or órdago
    if (legal.can('ordago') && (me >= 0.985 || (theyClose && me >= 0.9))) return { ordago: {} };
    if (legal.can('envido') && p >= 0.62) {
      const a = legal.envidoAction(p >= 0.82 ? 4 : 2);
      if (a) return a;
    }
    return legal.pick('paso') || legal.pick('no_quiero', 'no_queremos');
  }

  const stake = Number(bet.stake) || 0;
  const deje = Number(bet.deje) || 1;
  const accept = () => legal.pick('quiero', 'queremos');
  const decline = () => legal.pick('no_quiero', 'no_queremos');
  // Declining would hand them the game: accept whatever we hold.
  const declineLoses = ctx.theirScore + deje >= ctx.target;
  // Answering, only this seat's hand counts: a partner still in the lance is asked
  // too, and the braver answer wins (docs/rules.md §6.4). `me` already assumes the bettor
  // holds a strong hand.
  if (bet.is_ordago) {
    const yes = declineLoses || me >= 0.6 || (theyClose && me >= 0.35);
    return (yes ? accept() : decline()) || decline() || accept();
  }
  if (legal.can('ordago') && me >= 0.95 && (stake >= 6 || theyClose)) return { ordago: {} };
  if (legal.can('envido') && me >= 0.8 && stake < 12) {
    const a = legal.envidoAction(2);
    if (a) return a;
  }
  // Accept when the expected stones of seeing the bet beat those of declining: the
  // winner of pares/juego also scores its values, the decliner gives up the deje.
  const v = pareValueEstimate(lance);
  const threshold = (stake - deje) / (2 * stake + 2 * v) + 0.05;
  const yes = declineLoses || me >= threshold;
  return (yes ? accept() : decline()) || decline() || accept();
}

/** The decision for one DecisionRequest: `{action}`, always legal. */
function decide(req) {
  const ctx = context(req);
  let action = null;
  switch (req.phase) {
    case 'PHASE_MUS': action = decideMus(ctx); break;
    case 'PHASE_DISCARD': action = decideDiscard(ctx); break;
    case 'PHASE_BETTING': action = decideBet(ctx); break;
    default: action = null;
  }
  if (!action || !isLegal(action, req.legal_actions)) action = ctx.legal.any();
  return { action };
}

/** Whether `action` matches one of `legalActions` (a fixed entry or inside a shape). */
function isLegal(action, legalActions) {
  const kind = kindOf(action);
  for (const la of legalActions || []) {
    const lk = kindOf(la);
    if (lk !== kind) continue;
    if (kind === 'envido') {
      const a = Number(action.envido.amount);
      const min = Number(la.envido.min_amount);
      const max = Number(la.envido.max_amount);
      if (a >= min && (max === 0 || a <= max)) return true;
    } else if (kind === 'discard') {
      const cs = action.discard.cards || [];
      const pool = la.discard.cards.map((c) => `${c.rank}/${c.suit}`);
      const ids = cs.map((c) => `${c.rank}/${c.suit}`);
      const distinct = new Set(ids).size === ids.length;
      const n = ids.length;
      if (distinct && ids.every((id) => pool.includes(id))
        && n >= Number(la.discard.min_count) && n <= Number(la.discard.max_count)) return true;
    } else {
      return true;
    }
  }
  return false;
}

module.exports = {
  decide, context, winChance, evaluate, strength, expectedUtility, isLegal, rankOf,
  GRANDE, CHICA, PARES, JUEGO, PUNTO,
};
