'use strict';
// Unit tests of jsbot's strategy: `npm test` (node's built-in test runner, no extra
// dependencies). Requests are shaped as @grpc/proto-loader decodes them.

const test = require('node:test');
const assert = require('node:assert/strict');
const s = require('../strategy');

const RANKS = ['RANK_AS', 'RANK_DOS', 'RANK_TRES', 'RANK_CUATRO', 'RANK_CINCO', 'RANK_SEIS',
  'RANK_SIETE', 'RANK_SOTA', 'RANK_CABALLO', 'RANK_REY'];
const SUITS = ['SUIT_OROS', 'SUIT_COPAS', 'SUIT_ESPADAS', 'SUIT_BASTOS'];
const SYMBOL = { A: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, S: 7, C: 8, R: 9 };

/** 'R R 5 4' -> four proto Cards (distinct suits per rank). */
function hand(text) {
  const used = {};
  return text.split(' ').map((x) => {
    const r = SYMBOL[x];
    used[r] = (used[r] || 0) + 1;
    return { rank: RANKS[r], suit: SUITS[used[r] - 1] };
  });
}

function request(cards, phase, extra = {}) {
  let legal;
  if (phase === 'PHASE_MUS') legal = [{ mus: {}, kind: 'mus' }, { no_mus: {}, kind: 'no_mus' }];
  else if (phase === 'PHASE_DISCARD') {
    legal = [{ discard: { cards, min_count: 1, max_count: 4 }, kind: 'discard' }];
  } else {
    legal = [{ paso: {}, kind: 'paso' }, { envido: { min_amount: 2, max_amount: 0 }, kind: 'envido' },
      { ordago: {}, kind: 'ordago' }];
  }
  return {
    request_id: '7', seat: 0, mano: 0, dealer: 3, phase, lance: 'LANCE_UNSPECIFIED', cards,
    legal_actions: legal, history: [], bet: null, scores: [0, 0], target_points: 40,
    rules: { players: 4, kings: 8, target_points: 40, juego_real: 'JUEGO_REAL_OFF' },
    ...extra,
  };
}

function ranksOf(cards) {
  return cards.map((c) => c.rank).sort();
}

test('evaluation follows docs/rules.md §1 and §4 (8 kings)', () => {
  const v = s.evaluate(hand('R 3 C A'), 8); // R R C A: 31, par of reyes
  assert.equal(v.total, 31);
  assert.equal(v.pares, 1);
  assert.equal(s.evaluate(hand('R 3 C S'), 8).pares, 1);
  assert.equal(s.evaluate(hand('R 3 A 2'), 8).pares, 3); // duples: R R + A A
  assert.equal(s.evaluate(hand('R 3 A 2'), 4).pares, 0); // 4 kings: no pair at all
  assert.equal(s.evaluate(hand('R 3 A 2'), 4).total, 16);
  assert.equal(s.evaluate(hand('R R R R'), 8).total, 40);
  // Grande: R-3-4-4 beats R-C-C-C with 8 kings (the second card decides).
  assert.ok(s.evaluate(hand('R 3 4 4'), 8).grande > s.evaluate(hand('R C C C'), 8).grande);
  // Chica: A-2-7-R beats A-4-5-6 with 4 kings.
  assert.ok(s.evaluate(hand('A 2 7 R'), 4).chica > s.evaluate(hand('A 4 5 6'), 4).chica);
});

test('strength is a fraction, monotone in the hand', () => {
  const top = s.strength(s.evaluate(hand('R R R R'), 8), s.GRANDE, 8);
  const low = s.strength(s.evaluate(hand('6 5 4 A'), 8), s.GRANDE, 8);
  assert.ok(top > 0.99 && top <= 1);
  assert.ok(low < 0.05 && low >= 0);
});

test('mus: cuts with a good hand, asks with a poor one', () => {
  assert.ok(s.decide(request(hand('S C 7 4'), 'PHASE_MUS')).action.no_mus); // 31
  assert.ok(s.decide(request(hand('R R R A'), 'PHASE_MUS')).action.no_mus); // medias
  assert.ok(s.decide(request(hand('7 6 5 4'), 'PHASE_MUS')).action.mus);
});

test('discard: keeps kings, throws middle cards', () => {
  const a = s.decide(request(hand('R R 5 4'), 'PHASE_DISCARD')).action;
  assert.deepEqual(ranksOf(a.discard.cards), ['RANK_CINCO', 'RANK_CUATRO'].sort());
  const b = s.decide(request(hand('R C 7 6'), 'PHASE_DISCARD')).action;
  assert.ok(!b.discard.cards.some((c) => c.rank === 'RANK_REY'));
});

test('betting: bets on strength, passes on weakness, órdago only when near-certain', () => {
  const grande = (h) => s.decide(request(hand(h), 'PHASE_BETTING', { lance: 'LANCE_GRANDE' })).action;
  assert.ok(grande('R R R C').envido || grande('R R R C').ordago);
  assert.ok(grande('7 6 5 4').paso);
  assert.ok(!grande('R C S 7').ordago);
  // 31 from mano against juego: cannot lose the juego lance (no 31 real).
  const history = [1, 2, 3].map((seat) => ({
    declaration: { seat, lance: 'LANCE_JUEGO', has: true }, kind: 'declaration',
  }));
  const juego = s.decide(
    request(hand('S C 7 4'), 'PHASE_BETTING', { lance: 'LANCE_JUEGO', history }),
  ).action;
  assert.ok(juego.ordago || juego.envido);
});

test('answers: declines a big bet with a weak hand, accepts when declining loses the game', () => {
  const legal = [{ envido: { min_amount: 2, max_amount: 0 }, kind: 'envido' }, { quiero: {}, kind: 'quiero' },
    { no_quiero: {}, kind: 'no_quiero' }, { ordago: {}, kind: 'ordago' }];
  const weak = request(hand('7 6 5 4'), 'PHASE_BETTING', {
    lance: 'LANCE_GRANDE',
    legal_actions: legal,
    bet: { team: 1, seat: 1, stake: 10, deje: 6, is_ordago: false },
  });
  assert.ok(s.decide(weak).action.no_quiero);
  weak.scores = [0, 37];
  assert.ok(s.decide(weak).action.quiero);
});

test('every decision is legal, whatever the request (fuzz)', () => {
  let seed = 12345;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const deck = [];
  for (const rank of RANKS) for (const suit of SUITS) deck.push({ rank, suit });
  const shapes = [
    () => [{ mus: {}, kind: 'mus' }, { no_mus: {}, kind: 'no_mus' }],
    (cards) => [{ discard: { cards, min_count: 1 + rnd(2), max_count: 3 + rnd(2) }, kind: 'discard' }],
    () => [{ paso: {}, kind: 'paso' },
      { envido: { min_amount: 2, max_amount: rnd(2) ? 0 : 2 + rnd(5) }, kind: 'envido' }],
    () => [{ quiero: {}, kind: 'quiero' }, { no_quiero: {}, kind: 'no_quiero' }],
    () => [{ queremos: {}, kind: 'queremos' }, { no_queremos: {}, kind: 'no_queremos' },
      { quiero: {}, kind: 'quiero' }, { no_quiero: {}, kind: 'no_quiero' }],
    () => [{ envido: { min_amount: 5, max_amount: 5 }, kind: 'envido' }, { no_quiero: {}, kind: 'no_quiero' }],
    () => [{ ordago: {}, kind: 'ordago' }],
  ];
  const phases = ['PHASE_MUS', 'PHASE_DISCARD', 'PHASE_BETTING', 'PHASE_BETTING', 'PHASE_BETTING',
    'PHASE_BETTING', 'PHASE_BETTING'];
  const lances = ['LANCE_GRANDE', 'LANCE_CHICA', 'LANCE_PARES', 'LANCE_JUEGO', 'LANCE_PUNTO'];
  for (let i = 0; i < 3000; i++) {
    const pool = deck.slice();
    const cards = [0, 1, 2, 3].map(() => pool.splice(rnd(pool.length), 1)[0]);
    const k = rnd(shapes.length);
    const legal = shapes[k](cards);
    const req = request(cards, phases[k], {
      legal_actions: legal,
      lance: lances[rnd(lances.length)],
      seat: rnd(4),
      mano: rnd(4),
      scores: [rnd(40), rnd(40)],
      rules: { players: 4, kings: rnd(2) ? 8 : 4, target_points: 40, juego_real: 'JUEGO_REAL_OFF' },
      bet: rnd(2)
        ? { team: 1, seat: 1, stake: 2 + rnd(20), deje: 1 + rnd(5), is_ordago: rnd(4) === 0 }
        : null,
    });
    const { action } = s.decide(req);
    assert.ok(s.isLegal(action, legal), `illegal ${JSON.stringify(action)} for ${JSON.stringify(legal)}`);
  }
});
