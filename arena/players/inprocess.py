"""Run a :class:`mus_sdk.Bot` in the arena's process, through the same messages as gRPC.

The view is converted exactly as for a remote bot (engine -> ``mus.v1`` message -> SDK
observation), and the bot's action goes back through the message a remote bot would
send and the reader that checks it, so a bot behaves the same in-process and over the
wire; only the transport is skipped. The seña needs no conversion: the SDK's
:class:`~mus_core.events.Sena` is the engine's. Used for fast simulations and tests.
"""

from __future__ import annotations

from mus.v1 import game_pb2 as pb
from mus_core import HandResult, Observation, Rules
from mus_sdk import Bot, split_decision
from mus_sdk import convert as sdk_convert

from arena.referee.player import BotFault, Decision, DecisionTiming, FaultKind, MatchEndInfo, MatchStartInfo
from arena.wire import convert as wire


class InProcessBot:
    """A seat played by an SDK bot object in this process."""

    def __init__(self, bot: Bot, name: str | None = None) -> None:
        self.bot = bot
        self.name = name or bot.info().name
        self._match_id = ""
        self._rules_pb = wire.rules_to_pb(Rules())

    def start_match(self, info: MatchStartInfo) -> None:
        """Forward the match start to the bot."""
        self._match_id = info.match_id
        self._rules_pb = wire.rules_to_pb(info.rules)
        msg = wire.match_start_pb(info.match_id, info.seat, info.rules, info.seat_names, info.decision_ms, info.time_bank_ms)
        self.bot.on_match_start(sdk_convert.match_info_from_proto(msg))

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        """Ask the bot; any exception or unreadable answer is a fault."""
        req = wire.decision_request(
            view, request_id, self._match_id, int(timing.deadline_s * 1000), int(timing.bank_left_s * 1000),
            self._rules_pb,
        )
        try:
            obs = sdk_convert.observation_from_proto(req)
            action, sena = split_decision(self.bot.decide(obs))
            out = pb.Action()
            sdk_convert.fill_action(out, action)
        except Exception as exc:
            raise BotFault(FaultKind.BOT_ERROR, f"{type(exc).__name__}: {exc}") from None
        try:
            engine_action = wire.action_from_pb(out)
        except wire.WireError as exc:
            raise BotFault(FaultKind.MALFORMED, str(exc)) from None
        return Decision(engine_action, sena)

    def hand_end(self, result: HandResult) -> None:
        """Forward the revealed hands and the count (games won: the engine's, on the result)."""
        msg = wire.hand_end_pb(result)
        self.bot.on_hand_end(sdk_convert.hand_summary_from_proto(msg))

    def end_match(self, info: MatchEndInfo) -> None:
        """Forward the match end."""
        msg = wire.match_end_pb(info.winner_team, info.games_won, info.reason, info.detail, info.vacas_won)
        self.bot.on_match_end(sdk_convert.match_result_from_proto(msg))
