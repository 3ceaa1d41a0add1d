// cppbot's game logic: hand evaluation (docs/rules.md §1 and §4) and the decision rules.
// No networking here; main.cpp serves it over gRPC.
#pragma once

#include <array>
#include <string>

#include "mus/v1/bot_service.pb.h"

namespace cppbot {

// Ranks are the proto's natural ranks: 1 as, 2 dos, 3 tres, 4..7, 8 sota, 9 caballo,
// 10 rey. With 8 kings a tres counts as a rey and a dos as an as (docs/rules.md §1.2).
int EffectiveRank(int rank, int kings);
// Points of a card for juego and punto: 10 for figures (and tres with 8 kings), 1 for
// as (and dos with 8 kings), the face value otherwise.
int CardPoints(int rank, int kings);

// Pares category: 0 none, 1 par, 2 medias, 3 duples (docs/rules.md §4.3).
struct HandEval {
  int total = 0;         // juego/punto total
  int grande_key = 0;    // higher beats lower (docs/rules.md §4.1)
  int chica_key = 0;     // higher beats lower, i.e. the lower hand (§4.2)
  int pares_key = 0;     // 0 = no pares; higher beats lower (§4.3)
  int pares_cat = 0;     // 0..3
  int juego_key = 0;     // 0 = no juego; 31 best ... 33 worst, 9 = 31 real (§4.4)
  int punto_key = 0;     // total when it is below 31, 0 otherwise (§4.5)
};

// Evaluates four natural ranks. `juego_real` is the proto enum value (0 or 1 = off).
HandEval Evaluate(const std::array<int, 4>& ranks, int kings, int juego_real = 1);

// Fraction of all 4-card hands of the 40-card deck this hand beats in `lance`
// (mus.v1.Lance number), ties counting half. With among_holders (pares, juego) only
// the hands that have pares/juego are counted, and a hand without them gets 0. Punto
// is always ranked among the hands without juego (punto is played only then).
double Strength(const HandEval& e, int lance, int kings, bool among_holders);

// The value of holding a hand, used to choose discards and whether to cut the mus:
// rewards polarised hands (kings for grande, aces for chica), pares and juego.
double HandUtility(const std::array<int, 4>& ranks, int kings);

// Builds the lookup tables for both kings variants (a few tens of milliseconds).
// Called once before serving; every other function here is then thread-safe.
void InitTables();

// Whether `action` matches one of the request's legal actions.
bool IsLegal(const mus::v1::Action& action, const mus::v1::DecisionRequest& req);

// The decision for one request: always legal (a safe default if the logic fails).
// `why` receives a one-line explanation for the log.
mus::v1::Action Decide(const mus::v1::DecisionRequest& req, std::string* why);

}  // namespace cppbot
