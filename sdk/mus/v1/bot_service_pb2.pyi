# mypy: ignore-errors
from mus.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchEndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_END_REASON_UNSPECIFIED: _ClassVar[MatchEndReason]
    MATCH_END_REASON_COMPLETED: _ClassVar[MatchEndReason]
    MATCH_END_REASON_FORFEIT: _ClassVar[MatchEndReason]
    MATCH_END_REASON_ABORTED: _ClassVar[MatchEndReason]
MATCH_END_REASON_UNSPECIFIED: MatchEndReason
MATCH_END_REASON_COMPLETED: MatchEndReason
MATCH_END_REASON_FORFEIT: MatchEndReason
MATCH_END_REASON_ABORTED: MatchEndReason

class GetInfoRequest(_message.Message):
    __slots__ = ("protocol_versions",)
    PROTOCOL_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    protocol_versions: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, protocol_versions: _Optional[_Iterable[int]] = ...) -> None: ...

class GetInfoResponse(_message.Message):
    __slots__ = ("name", "version", "author", "protocol_versions", "sdk", "skip_hand_ends")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    SDK_FIELD_NUMBER: _ClassVar[int]
    SKIP_HAND_ENDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    author: str
    protocol_versions: _containers.RepeatedScalarFieldContainer[int]
    sdk: str
    skip_hand_ends: bool
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., protocol_versions: _Optional[_Iterable[int]] = ..., sdk: _Optional[str] = ..., skip_hand_ends: _Optional[bool] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("match_start", "decision_request", "hand_end", "match_end")
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    HAND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    match_start: MatchStart
    decision_request: DecisionRequest
    hand_end: HandEnd
    match_end: MatchEnd
    def __init__(self, match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., hand_end: _Optional[_Union[HandEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("decision", "error")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    decision: Decision
    error: BotError
    def __init__(self, decision: _Optional[_Union[Decision, _Mapping]] = ..., error: _Optional[_Union[BotError, _Mapping]] = ...) -> None: ...

class ShutdownRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ShutdownResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "seat", "partner_seats", "num_seats", "rules", "scores", "games_won", "time_bank_ms", "decision_deadline_ms", "protocol_version", "seat_names")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PARTNER_SEATS_FIELD_NUMBER: _ClassVar[int]
    NUM_SEATS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    GAMES_WON_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    DECISION_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    partner_seats: _containers.RepeatedScalarFieldContainer[int]
    num_seats: int
    rules: _game_pb2.Rules
    scores: _containers.RepeatedScalarFieldContainer[int]
    games_won: _containers.RepeatedScalarFieldContainer[int]
    time_bank_ms: int
    decision_deadline_ms: int
    protocol_version: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., partner_seats: _Optional[_Iterable[int]] = ..., num_seats: _Optional[int] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., scores: _Optional[_Iterable[int]] = ..., games_won: _Optional[_Iterable[int]] = ..., time_bank_ms: _Optional[int] = ..., decision_deadline_ms: _Optional[int] = ..., protocol_version: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "seat", "phase", "lance", "legal_actions", "cards", "mano", "dealer", "scores", "history", "bet", "legal_senas", "deadline_ms", "time_bank_ms", "discard_round", "match_id", "game", "hand", "games_won", "target_points", "rules", "vacas_won", "own_discards")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    LANCE_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    MANO_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    BET_FIELD_NUMBER: _ClassVar[int]
    LEGAL_SENAS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_ROUND_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    GAMES_WON_FIELD_NUMBER: _ClassVar[int]
    TARGET_POINTS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VACAS_WON_FIELD_NUMBER: _ClassVar[int]
    OWN_DISCARDS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    seat: int
    phase: _game_pb2.Phase
    lance: _game_pb2.Lance
    legal_actions: _containers.RepeatedCompositeFieldContainer[_game_pb2.LegalAction]
    cards: _containers.RepeatedCompositeFieldContainer[_game_pb2.Card]
    mano: int
    dealer: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    history: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    bet: LiveBet
    legal_senas: _containers.RepeatedScalarFieldContainer[_game_pb2.Sena]
    deadline_ms: int
    time_bank_ms: int
    discard_round: int
    match_id: str
    game: int
    hand: int
    games_won: _containers.RepeatedScalarFieldContainer[int]
    target_points: int
    rules: _game_pb2.Rules
    vacas_won: _containers.RepeatedScalarFieldContainer[int]
    own_discards: _containers.RepeatedCompositeFieldContainer[_game_pb2.Card]
    def __init__(self, request_id: _Optional[int] = ..., seat: _Optional[int] = ..., phase: _Optional[_Union[_game_pb2.Phase, str]] = ..., lance: _Optional[_Union[_game_pb2.Lance, str]] = ..., legal_actions: _Optional[_Iterable[_Union[_game_pb2.LegalAction, _Mapping]]] = ..., cards: _Optional[_Iterable[_Union[_game_pb2.Card, _Mapping]]] = ..., mano: _Optional[int] = ..., dealer: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., history: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ..., bet: _Optional[_Union[LiveBet, _Mapping]] = ..., legal_senas: _Optional[_Iterable[_Union[_game_pb2.Sena, str]]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., discard_round: _Optional[int] = ..., match_id: _Optional[str] = ..., game: _Optional[int] = ..., hand: _Optional[int] = ..., games_won: _Optional[_Iterable[int]] = ..., target_points: _Optional[int] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., vacas_won: _Optional[_Iterable[int]] = ..., own_discards: _Optional[_Iterable[_Union[_game_pb2.Card, _Mapping]]] = ...) -> None: ...

class LiveBet(_message.Message):
    __slots__ = ("team", "seat", "stake", "deje", "is_ordago")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    DEJE_FIELD_NUMBER: _ClassVar[int]
    IS_ORDAGO_FIELD_NUMBER: _ClassVar[int]
    team: int
    seat: int
    stake: int
    deje: int
    is_ordago: bool
    def __init__(self, team: _Optional[int] = ..., seat: _Optional[int] = ..., stake: _Optional[int] = ..., deje: _Optional[int] = ..., is_ordago: _Optional[bool] = ...) -> None: ...

class HandEnd(_message.Message):
    __slots__ = ("result", "games_won")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    GAMES_WON_FIELD_NUMBER: _ClassVar[int]
    result: _game_pb2.HandResult
    games_won: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, result: _Optional[_Union[_game_pb2.HandResult, _Mapping]] = ..., games_won: _Optional[_Iterable[int]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("games_won", "winner_team", "reason", "detail", "vacas_won")
    GAMES_WON_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    VACAS_WON_FIELD_NUMBER: _ClassVar[int]
    games_won: _containers.RepeatedScalarFieldContainer[int]
    winner_team: int
    reason: MatchEndReason
    detail: str
    vacas_won: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, games_won: _Optional[_Iterable[int]] = ..., winner_team: _Optional[int] = ..., reason: _Optional[_Union[MatchEndReason, str]] = ..., detail: _Optional[str] = ..., vacas_won: _Optional[_Iterable[int]] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("request_id", "action", "sena")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SENA_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    action: _game_pb2.Action
    sena: _game_pb2.Sena
    def __init__(self, request_id: _Optional[int] = ..., action: _Optional[_Union[_game_pb2.Action, _Mapping]] = ..., sena: _Optional[_Union[_game_pb2.Sena, str]] = ...) -> None: ...

class BotError(_message.Message):
    __slots__ = ("request_id", "error_type", "message", "traceback")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TRACEBACK_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    error_type: str
    message: str
    traceback: str
    def __init__(self, request_id: _Optional[int] = ..., error_type: _Optional[str] = ..., message: _Optional[str] = ..., traceback: _Optional[str] = ...) -> None: ...
