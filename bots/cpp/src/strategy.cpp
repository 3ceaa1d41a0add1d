// cppbot's game logic. See strategy.h.
//
// The play, in short:
// * Every hand is scored by lance with a percentile among all 4-card hands of the deck
//   (Strength), computed from tables built once at start-up.
// * Mus: cut ("no hay mus") with a hand that is already good (31, duples, medias, kings
//   with pares, juego with pares), or when no discard is expected to improve it.
// * Discard: the subset of cards whose replacement maximises the expected HandUtility
//   over every possible draw from the 36 unseen cards (kings, aces, pares, juego).
// * Betting: strength per lance plus a bonus for position (ties go to mano) and for what
//   the partner declared or bet; open, raise, accept or decline by thresholds that rise
//   with the stake; órdago only with a near-certain hand or when the opponents are about
//   to win anyway.
#include "strategy.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <utility>
#include <vector>

namespace cppbot {
namespace {

using mus::v1::Action;
using mus::v1::DecisionRequest;
using mus::v1::LegalAction;

constexpr int kGrande = mus::v1::LANCE_GRANDE;
constexpr int kChica = mus::v1::LANCE_CHICA;
constexpr int kPares = mus::v1::LANCE_PARES;
constexpr int kJuego = mus::v1::LANCE_JUEGO;
constexpr int kPunto = mus::v1::LANCE_PUNTO;

// ---------------------------------------------------------------- percentile tables

// Keys of one lance with their weights (number of real 4-card hands), sorted by key.
struct Table {
  std::vector<int> keys;
  std::vector<double> cumulative;  // cumulative[i] = weight of keys[0..i]
  double zero_weight = 0;          // weight of key 0 (no pares / no juego)

  void Build(std::vector<std::pair<int, double>> items) {
    std::sort(items.begin(), items.end());
    double acc = 0;
    for (const auto& [key, w] : items) {
      if (!keys.empty() && keys.back() == key) {
        cumulative.back() += w;
      } else {
        keys.push_back(key);
        cumulative.push_back(acc + w);
      }
      acc = cumulative.back();
      if (key == 0) zero_weight += w;
    }
  }

  double Percentile(int key, bool among_holders) const {
    if (keys.empty()) return 0.5;
    auto it = std::lower_bound(keys.begin(), keys.end(), key);
    size_t i = static_cast<size_t>(it - keys.begin());
    double below = i > 0 ? cumulative[i - 1] : 0;
    double tie = (i < keys.size() && keys[i] == key) ? cumulative[i] - below : 0;
    double everyone = cumulative.back();
    if (among_holders) {
      if (key == 0) return 0.0;
      double denom = everyone - zero_weight;
      if (denom <= 0) return 0.5;
      return (below - zero_weight + tie / 2) / denom;
    }
    return (below + tie / 2) / everyone;
  }
};

struct Tables {
  Table lance[6];  // indexed by mus.v1.Lance; punto holds only hands without juego
  std::vector<float> utility;  // indexed by SortedCode of natural ranks
};

Tables g_tables[2];  // [0] = 4 kings, [1] = 8 kings
std::once_flag g_init_once;

const Tables& TablesFor(int kings) { return g_tables[kings == 4 ? 0 : 1]; }

// Code of four natural ranks sorted ascending, 0..9999.
int SortedCode(std::array<int, 4> r) {
  std::sort(r.begin(), r.end());
  return (((r[0] - 1) * 10 + (r[1] - 1)) * 10 + (r[2] - 1)) * 10 + (r[3] - 1);
}

double Choose(int n, int k) {
  if (k < 0 || k > n) return 0;
  double c = 1;
  for (int i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c;
}

// Calls f(ranks, weight) for every multiset of 4 natural ranks, weight = number of
// 4-card hands of the 40-card deck (4 suits a rank) with those ranks.
template <typename F>
void ForEachRankMultiset(F f) {
  for (int a = 1; a <= 10; ++a)
    for (int b = a; b <= 10; ++b)
      for (int c = b; c <= 10; ++c)
        for (int d = c; d <= 10; ++d) {
          int count[11] = {0};
          ++count[a], ++count[b], ++count[c], ++count[d];
          double w = 1;
          for (int r = 1; r <= 10; ++r) w *= Choose(4, count[r]);
          if (w > 0) f(std::array<int, 4>{a, b, c, d}, w);
        }
}

double UtilityUncached(const std::array<int, 4>& ranks, int kings) {
  HandEval e = Evaluate(ranks, kings);
  double sg = Strength(e, kGrande, kings, false);
  double sc = Strength(e, kChica, kings, false);
  // Squares reward polarised hands: grande and chica are won by the best of four.
  double u = 1.5 * sg * sg + 1.2 * sc * sc;
  if (e.pares_cat > 0) {
    u += 0.5 * (e.pares_cat + 1) * (0.4 + 0.6 * Strength(e, kPares, kings, true));
  }
  if (e.juego_key > 0) {
    double value = e.total == 31 ? 3 : 2;
    u += 0.5 * (value + 1) * (0.4 + 0.6 * Strength(e, kJuego, kings, true));
  } else {
    u += 0.3 * Strength(e, kPunto, kings, false);
  }
  return u;
}

void BuildTables() {
  for (int v = 0; v < 2; ++v) {
    int kings = v == 0 ? 4 : 8;
    std::vector<std::pair<int, double>> items[6];
    ForEachRankMultiset([&](const std::array<int, 4>& r, double w) {
      HandEval e = Evaluate(r, kings);
      items[kGrande].emplace_back(e.grande_key, w);
      items[kChica].emplace_back(e.chica_key, w);
      items[kPares].emplace_back(e.pares_key, w);
      items[kJuego].emplace_back(e.juego_key, w);
      if (e.juego_key == 0) items[kPunto].emplace_back(e.punto_key, w);
    });
    for (int l = kGrande; l <= kPunto; ++l) g_tables[v].lance[l].Build(std::move(items[l]));
    g_tables[v].utility.assign(10000, 0.0f);
    ForEachRankMultiset([&](const std::array<int, 4>& r, double) {
      g_tables[v].utility[SortedCode(r)] = static_cast<float>(UtilityUncached(r, kings));
    });
  }
}

// ---------------------------------------------------------------- request helpers

int KingsOf(const DecisionRequest& req) { return req.rules().kings() == 4 ? 4 : 8; }

int SeatsOf(const DecisionRequest& req) {
  int n = static_cast<int>(req.rules().players());
  return n >= 2 ? n : 4;
}

bool HasFixed(const DecisionRequest& req, LegalAction::KindCase kind) {
  for (const auto& la : req.legal_actions())
    if (la.kind_case() == kind) return true;
  return false;
}

const mus::v1::EnvidoRange* EnvidoRangeOf(const DecisionRequest& req) {
  for (const auto& la : req.legal_actions())
    if (la.kind_case() == LegalAction::kEnvido) return &la.envido();
  return nullptr;
}

const mus::v1::DiscardRange* DiscardRangeOf(const DecisionRequest& req) {
  for (const auto& la : req.legal_actions())
    if (la.kind_case() == LegalAction::kDiscard) return &la.discard();
  return nullptr;
}

Action Fixed(LegalAction::KindCase kind) {
  Action a;
  switch (kind) {
    case LegalAction::kMus: a.mutable_mus(); break;
    case LegalAction::kNoMus: a.mutable_no_mus(); break;
    case LegalAction::kPaso: a.mutable_paso(); break;
    case LegalAction::kQuiero: a.mutable_quiero(); break;
    case LegalAction::kNoQuiero: a.mutable_no_quiero(); break;
    case LegalAction::kOrdago: a.mutable_ordago(); break;
    case LegalAction::kQueremos: a.mutable_queremos(); break;
    case LegalAction::kNoQueremos: a.mutable_no_queremos(); break;
    default: break;
  }
  return a;
}

bool SameCard(const mus::v1::Card& a, const mus::v1::Card& b) {
  return a.rank() == b.rank() && a.suit() == b.suit();
}

// The referee's safe default, which is always legal: no_mus, paso, no_quiero, the
// smallest discard, or else the first legal entry.
Action SafeDefault(const DecisionRequest& req) {
  for (auto kind : {LegalAction::kNoMus, LegalAction::kPaso, LegalAction::kNoQuiero,
                    LegalAction::kNoQueremos, LegalAction::kMus, LegalAction::kQuiero,
                    LegalAction::kQueremos}) {
    if (HasFixed(req, kind)) return Fixed(kind);
  }
  if (const auto* d = DiscardRangeOf(req)) {
    Action a;
    int n = std::max<int>(1, static_cast<int>(d->min_count()));
    for (int i = 0; i < n && i < d->cards_size(); ++i) *a.mutable_discard()->add_cards() = d->cards(i);
    return a;
  }
  if (const auto* e = EnvidoRangeOf(req)) {
    Action a;
    a.mutable_envido()->set_amount(std::max<uint32_t>(2, e->min_amount()));
    return a;
  }
  if (HasFixed(req, LegalAction::kOrdago)) return Fixed(LegalAction::kOrdago);
  return Fixed(LegalAction::kPaso);
}

bool HandRanks(const DecisionRequest& req, std::array<int, 4>* out) {
  if (req.cards_size() != 4) return false;
  for (int i = 0; i < 4; ++i) {
    int r = req.cards(i).rank();
    if (r < 1 || r > 10) return false;
    (*out)[i] = r;
  }
  return true;
}

// ---------------------------------------------------------------- discards

// Expected utility of keeping `keep` (natural ranks) and drawing `draw` cards from the
// unseen cards, given as counts per natural rank.
double ExpectedUtility(const std::vector<int>& keep, int draw, const int unseen[11], int kings) {
  const auto& util = TablesFor(kings).utility;
  double total_w = 0, sum = 0;
  std::array<int, 4> hand{};
  for (size_t i = 0; i < keep.size(); ++i) hand[i] = keep[i];
  // Enumerate multisets of `draw` ranks with weight prod C(unseen[r], k_r).
  struct Rec {
    const int* unseen;
    const std::vector<float>* util;
    std::array<int, 4>* hand;
    double* sum;
    double* total_w;
    void Go(int from_rank, int left, size_t pos, double w) {
      if (left == 0) {
        *sum += w * (*util)[SortedCode(*hand)];
        *total_w += w;
        return;
      }
      for (int r = from_rank; r <= 10; ++r) {
        for (int k = 1; k <= left && k <= unseen[r]; ++k) {
          for (int j = 0; j < k; ++j) (*hand)[pos + j] = r;
          Go(r + 1, left - k, pos + k, w * Choose(unseen[r], k));
        }
      }
    }
  } rec{unseen, &util, &hand, &sum, &total_w};
  rec.Go(1, draw, keep.size(), 1.0);
  return total_w > 0 ? sum / total_w : 0;
}

struct DiscardChoice {
  unsigned mask = 0;  // bit i set: throw card i
  double value = -1;
};

DiscardChoice BestDiscard(const std::array<int, 4>& ranks, int kings, int min_count, int max_count) {
  int unseen[11];
  for (int r = 1; r <= 10; ++r) unseen[r] = 4;
  for (int r : ranks) --unseen[r];
  DiscardChoice best;
  for (int count = std::max(1, min_count); count <= std::min(4, max_count); ++count) {
    for (unsigned mask = 1; mask < 16; ++mask) {
      if (__builtin_popcount(mask) != count) continue;
      std::vector<int> keep;
      for (int i = 0; i < 4; ++i)
        if (!(mask & (1u << i))) keep.push_back(ranks[i]);
      double v = ExpectedUtility(keep, count, unseen, kings);
      if (v > best.value + 1e-9) best = {mask, v};  // ties keep the smaller discard
    }
  }
  return best;
}

// ---------------------------------------------------------------- betting

struct Context {
  int seat = 0, n = 4, pos = 0, team = 0, kings = 8;
  int our_score = 0, their_score = 0, target = 40;
  bool they_close = false;
};

Context ContextOf(const DecisionRequest& req) {
  Context c;
  c.seat = static_cast<int>(req.seat());
  c.n = SeatsOf(req);
  c.pos = ((c.seat - static_cast<int>(req.mano())) % c.n + c.n) % c.n;
  c.team = c.seat % 2;
  c.kings = KingsOf(req);
  if (req.scores_size() >= 2) {
    c.our_score = static_cast<int>(req.scores(c.team));
    c.their_score = static_cast<int>(req.scores(1 - c.team));
  }
  c.target = static_cast<int>(req.target_points() ? req.target_points() : req.rules().target_points());
  if (c.target <= 0) c.target = 40;
  c.they_close = c.their_score >= c.target - 6;
  return c;
}

bool IsPartner(const Context& c, int seat) { return seat != c.seat && seat % 2 == c.team; }

// Whether a partner declared pares/juego, and whether a partner bet in this lance.
void PartnerInfo(const DecisionRequest& req, const Context& c, int lance, bool* declared, bool* bet) {
  *declared = false;
  *bet = false;
  bool in_lance = false;
  for (const auto& ev : req.history()) {
    switch (ev.kind_case()) {
      case mus::v1::Event::kDeclaration:
        if (IsPartner(c, static_cast<int>(ev.declaration().seat())) && ev.declaration().lance() == lance &&
            ev.declaration().has())
          *declared = true;
        break;
      case mus::v1::Event::kLanceStart:
        in_lance = ev.lance_start().lance() == lance;
        break;
      case mus::v1::Event::kBet:
        if (in_lance && IsPartner(c, static_cast<int>(ev.bet().seat())) &&
            (ev.bet().action().has_envido() || ev.bet().action().has_ordago()))
          *bet = true;
        break;
      default:
        break;
    }
  }
}

double BetStrength(const DecisionRequest& req, const Context& c, const HandEval& e, int lance) {
  double s;
  switch (lance) {
    case kGrande: s = Strength(e, kGrande, c.kings, false); break;
    case kChica: s = Strength(e, kChica, c.kings, false); break;
    case kPares: s = Strength(e, kPares, c.kings, true); break;
    case kJuego: s = Strength(e, kJuego, c.kings, true); break;
    case kPunto: s = Strength(e, kPunto, c.kings, false); break;
    default: s = 0.5; break;
  }
  // Ties go to the player closer to mano: being early is worth a little.
  s += 0.04 * (1.0 - static_cast<double>(c.pos) / std::max(1, c.n - 1));
  if (lance == kJuego && e.juego_key >= 8 && c.pos == 0) s = std::max(s, 0.99);  // 31 from mano
  if (lance == kJuego && e.juego_key == 9) s = std::max(s, 0.99);                 // 31 real
  bool declared, bet;
  PartnerInfo(req, c, lance, &declared, &bet);
  if ((lance == kPares || lance == kJuego) && declared) s += 0.08;  // partner scores too
  if (bet) s += 0.06;  // the partner already showed strength in this lance
  return std::min(s, 1.0);
}

bool MakeEnvido(const DecisionRequest& req, int want, double s, Action* out) {
  const auto* r = EnvidoRangeOf(req);
  if (!r) return false;
  int lo = std::max<int>(2, static_cast<int>(r->min_amount()));
  int hi = static_cast<int>(r->max_amount());  // 0 = unbounded
  int amount = std::max(want, lo);
  if (hi > 0) amount = std::min(amount, hi);
  if (amount < lo) return false;
  if (amount > want + 2 && s < 0.93) return false;  // a large forced minimum: not worth it
  out->mutable_envido()->set_amount(static_cast<uint32_t>(amount));
  return true;
}

Action Answer(const DecisionRequest& req, bool accept) {
  if (accept) {
    if (HasFixed(req, LegalAction::kQuiero)) return Fixed(LegalAction::kQuiero);
    if (HasFixed(req, LegalAction::kQueremos)) return Fixed(LegalAction::kQueremos);
  }
  if (HasFixed(req, LegalAction::kNoQuiero)) return Fixed(LegalAction::kNoQuiero);
  if (HasFixed(req, LegalAction::kNoQueremos)) return Fixed(LegalAction::kNoQueremos);
  return SafeDefault(req);
}

Action DecideBet(const DecisionRequest& req, const HandEval& e, std::ostringstream& why) {
  Context c = ContextOf(req);
  int lance = req.lance();
  double s = BetStrength(req, c, e, lance);
  why << "lance " << mus::v1::Lance_Name(req.lance()) << " strength " << s;
  bool can_ordago = HasFixed(req, LegalAction::kOrdago);
  Action a;

  if (!req.has_bet()) {  // opening: paso, envido or órdago
    if (can_ordago && (s >= 0.99 || (c.they_close && s >= 0.93))) return Fixed(LegalAction::kOrdago);
    if (s >= 0.72 && MakeEnvido(req, s < 0.88 ? 2 : 4, s, &a)) return a;
    if (HasFixed(req, LegalAction::kPaso)) return Fixed(LegalAction::kPaso);
    return SafeDefault(req);
  }

  const auto& bet = req.bet();
  // Declining hands them the deje; if that wins them the game, any chance is better.
  bool decline_loses_game = c.their_score + static_cast<int>(bet.deje()) >= c.target;
  if (bet.is_ordago()) {
    // Whoever bets the game holds a strong hand: see it only with a stronger one.
    bool accept = s >= 0.96 || (c.they_close && s >= 0.6) || decline_loses_game;
    return Answer(req, accept);
  }
  int stake = static_cast<int>(bet.stake());
  if (can_ordago && s >= 0.99) return Fixed(LegalAction::kOrdago);
  if (s >= 0.9 && stake < 10 && MakeEnvido(req, 2, s, &a)) return a;
  // The more is at stake, the stronger the hand must be to see it.
  double threshold = std::min(0.85, 0.5 + 0.04 * stake);
  return Answer(req, s >= threshold || decline_loses_game);
}

}  // namespace

// ---------------------------------------------------------------- evaluation

int EffectiveRank(int rank, int kings) {
  if (kings == 8) {
    if (rank == mus::v1::RANK_TRES) return mus::v1::RANK_REY;
    if (rank == mus::v1::RANK_DOS) return mus::v1::RANK_AS;
  }
  return rank;
}

int CardPoints(int rank, int kings) {
  int r = EffectiveRank(rank, kings);
  if (r >= mus::v1::RANK_SOTA) return 10;
  return r;  // as 1, dos 2, tres 3 (4 kings), 4..7 face value
}

HandEval Evaluate(const std::array<int, 4>& ranks, int kings, int juego_real) {
  HandEval e;
  std::array<int, 4> eff{};
  int count[11] = {0};
  int sevens = 0;
  for (int i = 0; i < 4; ++i) {
    eff[i] = EffectiveRank(ranks[i], kings);
    ++count[eff[i]];
    e.total += CardPoints(ranks[i], kings);
    if (ranks[i] == mus::v1::RANK_SIETE) ++sevens;
  }
  std::array<int, 4> desc = eff;
  std::sort(desc.begin(), desc.end(), [](int a, int b) { return a > b; });
  e.grande_key = ((desc[0] * 11 + desc[1]) * 11 + desc[2]) * 11 + desc[3];
  std::array<int, 4> asc = eff;
  std::sort(asc.begin(), asc.end());
  e.chica_key = (((11 - asc[0]) * 11 + (11 - asc[1])) * 11 + (11 - asc[2])) * 11 + (11 - asc[3]);

  // Pares: groups of equal effective rank, highest first.
  int pair_hi = 0, pair_lo = 0, trio = 0;
  for (int r = 10; r >= 1; --r) {
    if (count[r] == 4) {
      pair_hi = pair_lo = r;
    } else if (count[r] == 3) {
      trio = r;
    } else if (count[r] == 2) {
      if (!pair_hi) pair_hi = r; else pair_lo = r;
    }
  }
  if (pair_hi && pair_lo) {
    e.pares_cat = 3;
    e.pares_key = 30000 + pair_hi * 100 + pair_lo;
  } else if (trio) {
    e.pares_cat = 2;
    e.pares_key = 20000 + trio * 100;
  } else if (pair_hi) {
    e.pares_cat = 1;
    e.pares_key = 10000 + pair_hi * 100;
  }

  switch (e.total) {
    case 31: e.juego_key = 8; break;
    case 32: e.juego_key = 7; break;
    case 40: e.juego_key = 6; break;
    case 37: e.juego_key = 5; break;
    case 36: e.juego_key = 4; break;
    case 35: e.juego_key = 3; break;
    case 34: e.juego_key = 2; break;
    case 33: e.juego_key = 1; break;
    default: e.juego_key = 0; break;
  }
  if (e.total == 31 && sevens == 3) {  // 31 real (docs/rules.md §4.4)
    int fourth = 0;
    for (int r : ranks)
      if (r != mus::v1::RANK_SIETE) fourth = r;
    bool real = false;
    switch (juego_real) {
      case mus::v1::JUEGO_REAL_ANY_TEN_CARD: real = CardPoints(fourth, kings) == 10; break;
      case mus::v1::JUEGO_REAL_FIGURE_NO_THREE: real = fourth >= mus::v1::RANK_SOTA; break;
      case mus::v1::JUEGO_REAL_SOTA_ONLY: real = fourth == mus::v1::RANK_SOTA; break;
      default: break;
    }
    if (real) e.juego_key = 9;
  }
  e.punto_key = e.juego_key == 0 ? e.total : 0;
  return e;
}

double Strength(const HandEval& e, int lance, int kings, bool among_holders) {
  const Tables& t = TablesFor(kings);
  switch (lance) {
    case kGrande: return t.lance[kGrande].Percentile(e.grande_key, false);
    case kChica: return t.lance[kChica].Percentile(e.chica_key, false);
    case kPares: return t.lance[kPares].Percentile(e.pares_key, among_holders);
    case kJuego: return t.lance[kJuego].Percentile(e.juego_key, among_holders);
    case kPunto: return e.juego_key ? 1.0 : t.lance[kPunto].Percentile(e.punto_key, false);
    default: return 0.5;
  }
}

double HandUtility(const std::array<int, 4>& ranks, int kings) {
  return TablesFor(kings).utility[SortedCode(ranks)];
}

void InitTables() { std::call_once(g_init_once, BuildTables); }

bool IsLegal(const Action& action, const DecisionRequest& req) {
  for (const auto& la : req.legal_actions()) {
    switch (la.kind_case()) {
      case LegalAction::kEnvido:
        if (action.has_envido()) {
          uint32_t amt = action.envido().amount();
          if (amt >= std::max<uint32_t>(2, la.envido().min_amount()) &&
              (la.envido().max_amount() == 0 || amt <= la.envido().max_amount()))
            return true;
        }
        break;
      case LegalAction::kDiscard: {
        if (!action.has_discard()) break;
        const auto& cards = action.discard().cards();
        int n = cards.size();
        if (n < static_cast<int>(la.discard().min_count()) || n > static_cast<int>(la.discard().max_count()) ||
            n < 1)
          break;
        bool ok = true;
        for (int i = 0; i < n && ok; ++i) {
          bool in_range = false;
          for (const auto& c : la.discard().cards()) in_range = in_range || SameCard(c, cards[i]);
          for (int j = 0; j < i; ++j) ok = ok && !SameCard(cards[i], cards[j]);
          ok = ok && in_range;
        }
        if (ok) return true;
        break;
      }
      default:
        // Fixed actions share their field numbers between Action and LegalAction.
        if (la.kind_case() != LegalAction::KIND_NOT_SET &&
            static_cast<int>(la.kind_case()) == static_cast<int>(action.kind_case()))
          return true;
        break;
    }
  }
  return false;
}

Action Decide(const DecisionRequest& req, std::string* why_out) {
  InitTables();
  std::ostringstream why;
  Action a;
  std::array<int, 4> ranks{};
  int kings = KingsOf(req);
  if (!HandRanks(req, &ranks)) {
    why << "unexpected hand of " << req.cards_size() << " cards: safe default";
    a = SafeDefault(req);
  } else {
    HandEval e = Evaluate(ranks, kings, req.rules().juego_real());
    switch (req.phase()) {
      case mus::v1::PHASE_MUS: {
        double now = HandUtility(ranks, kings);
        DiscardChoice best = BestDiscard(ranks, kings, 1, 4);
        double sg = Strength(e, kGrande, kings, false);
        bool good = e.total == 31 || e.pares_cat >= 2 || (e.pares_cat > 0 && sg > 0.85) ||
                    (e.juego_key > 0 && e.pares_cat > 0) || now >= best.value;
        why << "mus: utility " << now << " vs " << best.value << " after the best discard";
        a = good && HasFixed(req, LegalAction::kNoMus) ? Fixed(LegalAction::kNoMus)
            : HasFixed(req, LegalAction::kMus)         ? Fixed(LegalAction::kMus)
                                                       : SafeDefault(req);
        break;
      }
      case mus::v1::PHASE_DISCARD: {
        const auto* d = DiscardRangeOf(req);
        if (!d) {
          a = SafeDefault(req);
          break;
        }
        DiscardChoice best = BestDiscard(ranks, kings, static_cast<int>(d->min_count()),
                                         static_cast<int>(d->max_count() ? d->max_count() : 4));
        for (int i = 0; i < 4; ++i)
          if (best.mask & (1u << i)) *a.mutable_discard()->add_cards() = req.cards(i);
        why << "discard " << a.discard().cards_size() << " (expected utility " << best.value << ")";
        break;
      }
      case mus::v1::PHASE_BETTING:
        a = DecideBet(req, e, why);
        break;
      default:
        a = SafeDefault(req);
        break;
    }
  }
  if (!IsLegal(a, req)) {
    why << "; chosen action not legal, safe default instead";
    a = SafeDefault(req);
  }
  if (why_out) *why_out = why.str();
  return a;
}

}  // namespace cppbot
