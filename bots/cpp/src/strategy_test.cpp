// Self-test of the hand evaluation against docs/rules.md §13's test vectors, and of the
// decision logic's legality on a few hand-made requests. Run: build/strategy_test
#include <array>
#include <cstdio>
#include <string>

#include "strategy.h"

namespace {

int failures = 0;

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what.c_str());
    ++failures;
  }
}

// Ranks: A=1 2 3 4 5 6 7 S=8 C=9 R=10.
constexpr int A = 1, S = 8, C = 9, R = 10;
using H = std::array<int, 4>;

cppbot::HandEval E(H h, int kings = 8, int real = 1) { return cppbot::Evaluate(h, kings, real); }

mus::v1::DecisionRequest Request(H h, mus::v1::Phase phase) {
  mus::v1::DecisionRequest req;
  req.set_request_id(7);
  req.set_seat(0);
  req.set_phase(phase);
  req.set_mano(0);
  req.set_target_points(40);
  req.mutable_rules()->set_players(4);
  req.mutable_rules()->set_kings(8);
  req.mutable_rules()->set_target_points(40);
  req.add_scores(0);
  req.add_scores(0);
  for (int i = 0; i < 4; ++i) {
    auto* c = req.add_cards();
    c->set_rank(static_cast<mus::v1::Rank>(h[i]));
    c->set_suit(static_cast<mus::v1::Suit>(i + 1));
  }
  return req;
}

}  // namespace

int main() {
  cppbot::InitTables();
  // TV-01: R 3 4 4 vs R C C C.
  Check(E({R, 3, 4, 4}).grande_key > E({R, C, C, C}).grande_key, "TV-01 8 kings");
  Check(E({R, 3, 4, 4}, 4).grande_key < E({R, C, C, C}, 4).grande_key, "TV-01 4 kings");
  // TV-02a: A 2 7 R beats A 4 5 6 at chica.
  Check(E({A, 2, 7, R}).chica_key > E({A, 4, 5, 6}).chica_key, "TV-02a 8 kings");
  Check(E({A, 2, 7, R}, 4).chica_key > E({A, 4, 5, 6}, 4).chica_key, "TV-02a 4 kings");
  // TV-03 pares.
  Check(E({R, R, A, A}).pares_key > E({R, R, R, 4}).pares_key, "TV-03.1");
  Check(E({R, 3, R, 3}).pares_key > E({R, R, C, C}).pares_key, "TV-03.2");
  Check(E({R, R, 4, 4}).pares_key > E({C, C, S, S}).pares_key, "TV-03.3");
  Check(E({2, A, A, 5}).pares_key > E({R, 3, C, 4}).pares_key, "TV-03.4");
  Check(E({R, 3, C, 4}).pares_key == E({R, R, 6, 5}).pares_key, "TV-03.5");
  Check(E({R, 3, C, 4}, 4).pares_key == 0, "TV-03.6 no pares");
  Check(E({R, 3, C, C}, 4).pares_cat == 1, "TV-03.6 par");
  // TV-04 juego.
  Check(E({R, 3, C, A}).total == 31 && E({R, C, 7, 7}).total == 34, "TV-04 totals");
  Check(E({R, 3, C, A}).juego_key > E({R, C, 7, 7}).juego_key, "TV-04 31 > 34");
  Check(E({R, C, S, 2}).juego_key > E({R, C, S, S}).juego_key, "TV-04 32? no: 31 > 40");
  Check(E({7, 7, 7, S}, 8, mus::v1::JUEGO_REAL_ANY_TEN_CARD).juego_key == 9, "TV-04 real S");
  Check(E({7, 7, 7, 3}, 8, mus::v1::JUEGO_REAL_FIGURE_NO_THREE).juego_key == 8, "TV-04 7773 not real");
  Check(E({7, 7, 7, R}, 8, mus::v1::JUEGO_REAL_SOTA_ONLY).juego_key == 8, "TV-04 777R sota only");
  // TV-05 punto and TV-06 with 4 kings.
  Check(E({R, S, 5, 5}).punto_key == 30 && E({R, C, 4, 5}).punto_key == 29, "TV-05");
  Check(E({R, 3, C, A}, 4).total == 24, "TV-06 4 kings");
  // Strength is a sane percentile.
  double top = cppbot::Strength(E({R, R, R, R}), mus::v1::LANCE_GRANDE, 8, false);
  double low = cppbot::Strength(E({A, A, A, A}), mus::v1::LANCE_GRANDE, 8, false);
  Check(top > 0.99 && low < 0.01, "grande strength extremes");
  Check(cppbot::Strength(E({4, 5, 6, 7}), mus::v1::LANCE_PARES, 8, true) == 0.0, "no pares -> 0");

  // Decisions: a good hand cuts the mus; a bad one discards its middle cards.
  {
    auto req = Request({R, R, R, A}, mus::v1::PHASE_MUS);
    req.add_legal_actions()->mutable_mus();
    req.add_legal_actions()->mutable_no_mus();
    auto a = cppbot::Decide(req, nullptr);
    Check(a.has_no_mus(), "R R R A cuts the mus");
  }
  {
    auto req = Request({R, 5, 6, A}, mus::v1::PHASE_DISCARD);
    auto* d = req.add_legal_actions()->mutable_discard();
    *d->mutable_cards() = req.cards();
    d->set_min_count(1);
    d->set_max_count(4);
    std::string why;
    auto a = cppbot::Decide(req, &why);
    Check(a.has_discard() && cppbot::IsLegal(a, req), "discard is legal");
    bool keeps_king = true, throws_5 = false, throws_6 = false;
    for (const auto& c : a.discard().cards()) {
      if (c.rank() == R) keeps_king = false;
      if (c.rank() == 5) throws_5 = true;
      if (c.rank() == 6) throws_6 = true;
    }
    Check(keeps_king && throws_5 && throws_6, "R 5 6 A keeps R, throws 5 and 6: " + a.ShortDebugString());
  }
  {  // A strong grande opens; the amount stays within the range.
    auto req = Request({R, R, 3, C}, mus::v1::PHASE_BETTING);
    req.set_lance(mus::v1::LANCE_GRANDE);
    req.add_legal_actions()->mutable_paso();
    auto* e = req.add_legal_actions()->mutable_envido();
    e->set_min_amount(2);
    e->set_max_amount(0);
    req.add_legal_actions()->mutable_ordago();
    auto a = cppbot::Decide(req, nullptr);
    Check((a.has_envido() || a.has_ordago()) && cppbot::IsLegal(a, req), "R R 3 C bets grande");
  }
  {  // A weak chica declines a big bet.
    auto req = Request({R, R, C, S}, mus::v1::PHASE_BETTING);
    req.set_lance(mus::v1::LANCE_CHICA);
    req.mutable_bet()->set_team(1);
    req.mutable_bet()->set_seat(1);
    req.mutable_bet()->set_stake(10);
    req.mutable_bet()->set_deje(1);
    req.add_legal_actions()->mutable_quiero();
    req.add_legal_actions()->mutable_no_quiero();
    auto* e = req.add_legal_actions()->mutable_envido();
    e->set_min_amount(2);
    auto a = cppbot::Decide(req, nullptr);
    Check(a.has_no_quiero(), "R R C S declines chica 10");
  }
  if (failures) return 1;
  std::printf("strategy_test: all checks passed\n");
  return 0;
}
