# mypy: ignore-errors
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANK_UNSPECIFIED: _ClassVar[Rank]
    RANK_AS: _ClassVar[Rank]
    RANK_DOS: _ClassVar[Rank]
    RANK_TRES: _ClassVar[Rank]
    RANK_CUATRO: _ClassVar[Rank]
    RANK_CINCO: _ClassVar[Rank]
    RANK_SEIS: _ClassVar[Rank]
    RANK_SIETE: _ClassVar[Rank]
    RANK_SOTA: _ClassVar[Rank]
    RANK_CABALLO: _ClassVar[Rank]
    RANK_REY: _ClassVar[Rank]

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_OROS: _ClassVar[Suit]
    SUIT_COPAS: _ClassVar[Suit]
    SUIT_ESPADAS: _ClassVar[Suit]
    SUIT_BASTOS: _ClassVar[Suit]

class Lance(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LANCE_UNSPECIFIED: _ClassVar[Lance]
    LANCE_GRANDE: _ClassVar[Lance]
    LANCE_CHICA: _ClassVar[Lance]
    LANCE_PARES: _ClassVar[Lance]
    LANCE_JUEGO: _ClassVar[Lance]
    LANCE_PUNTO: _ClassVar[Lance]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_MUS: _ClassVar[Phase]
    PHASE_DISCARD: _ClassVar[Phase]
    PHASE_BETTING: _ClassVar[Phase]
    PHASE_MATCH_OVER: _ClassVar[Phase]

class Sena(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SENA_UNSPECIFIED: _ClassVar[Sena]
    SENA_DOS_REYES: _ClassVar[Sena]
    SENA_TRES_REYES: _ClassVar[Sena]
    SENA_CUATRO_REYES: _ClassVar[Sena]
    SENA_DOS_ASES: _ClassVar[Sena]
    SENA_TRES_ASES: _ClassVar[Sena]
    SENA_CUATRO_ASES: _ClassVar[Sena]
    SENA_PARES: _ClassVar[Sena]
    SENA_MEDIAS: _ClassVar[Sena]
    SENA_DUPLES: _ClassVar[Sena]
    SENA_JUEGO: _ClassVar[Sena]
    SENA_TREINTA_Y_UNA: _ClassVar[Sena]
    SENA_TREINTA: _ClassVar[Sena]
    SENA_VEINTINUEVE: _ClassVar[Sena]
    SENA_CIEGO: _ClassVar[Sena]
    SENA_SOLOMILLO: _ClassVar[Sena]
    SENA_CORTAR_MUS: _ClassVar[Sena]
    SENA_ENVIDAR_MAS: _ClassVar[Sena]

class LanceOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LANCE_OUTCOME_UNSPECIFIED: _ClassVar[LanceOutcome]
    LANCE_OUTCOME_EN_PASO: _ClassVar[LanceOutcome]
    LANCE_OUTCOME_ACCEPTED: _ClassVar[LanceOutcome]
    LANCE_OUTCOME_DECLINED: _ClassVar[LanceOutcome]
    LANCE_OUTCOME_ONE_TEAM: _ClassVar[LanceOutcome]
    LANCE_OUTCOME_SKIPPED: _ClassVar[LanceOutcome]
    LANCE_OUTCOME_ORDAGO: _ClassVar[LanceOutcome]
    LANCE_OUTCOME_NOT_PLAYED: _ClassVar[LanceOutcome]

class JuegoReal(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JUEGO_REAL_UNSPECIFIED: _ClassVar[JuegoReal]
    JUEGO_REAL_OFF: _ClassVar[JuegoReal]
    JUEGO_REAL_ANY_TEN_CARD: _ClassVar[JuegoReal]
    JUEGO_REAL_FIGURE_NO_THREE: _ClassVar[JuegoReal]
    JUEGO_REAL_SOTA_ONLY: _ClassVar[JuegoReal]

class SignalMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIGNAL_MODE_UNSPECIFIED: _ClassVar[SignalMode]
    SIGNAL_MODE_PUBLIC: _ClassVar[SignalMode]
    SIGNAL_MODE_OFF: _ClassVar[SignalMode]
    SIGNAL_MODE_PARTNER_WITH_INTERCEPTION: _ClassVar[SignalMode]

class MusCorrido(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MUS_CORRIDO_UNSPECIFIED: _ClassVar[MusCorrido]
    MUS_CORRIDO_OFF: _ClassVar[MusCorrido]
    MUS_CORRIDO_FIRST_HAND_OF_MATCH: _ClassVar[MusCorrido]
    MUS_CORRIDO_FIRST_HAND_OF_EACH_GAME: _ClassVar[MusCorrido]
RANK_UNSPECIFIED: Rank
RANK_AS: Rank
RANK_DOS: Rank
RANK_TRES: Rank
RANK_CUATRO: Rank
RANK_CINCO: Rank
RANK_SEIS: Rank
RANK_SIETE: Rank
RANK_SOTA: Rank
RANK_CABALLO: Rank
RANK_REY: Rank
SUIT_UNSPECIFIED: Suit
SUIT_OROS: Suit
SUIT_COPAS: Suit
SUIT_ESPADAS: Suit
SUIT_BASTOS: Suit
LANCE_UNSPECIFIED: Lance
LANCE_GRANDE: Lance
LANCE_CHICA: Lance
LANCE_PARES: Lance
LANCE_JUEGO: Lance
LANCE_PUNTO: Lance
PHASE_UNSPECIFIED: Phase
PHASE_MUS: Phase
PHASE_DISCARD: Phase
PHASE_BETTING: Phase
PHASE_MATCH_OVER: Phase
SENA_UNSPECIFIED: Sena
SENA_DOS_REYES: Sena
SENA_TRES_REYES: Sena
SENA_CUATRO_REYES: Sena
SENA_DOS_ASES: Sena
SENA_TRES_ASES: Sena
SENA_CUATRO_ASES: Sena
SENA_PARES: Sena
SENA_MEDIAS: Sena
SENA_DUPLES: Sena
SENA_JUEGO: Sena
SENA_TREINTA_Y_UNA: Sena
SENA_TREINTA: Sena
SENA_VEINTINUEVE: Sena
SENA_CIEGO: Sena
SENA_SOLOMILLO: Sena
SENA_CORTAR_MUS: Sena
SENA_ENVIDAR_MAS: Sena
LANCE_OUTCOME_UNSPECIFIED: LanceOutcome
LANCE_OUTCOME_EN_PASO: LanceOutcome
LANCE_OUTCOME_ACCEPTED: LanceOutcome
LANCE_OUTCOME_DECLINED: LanceOutcome
LANCE_OUTCOME_ONE_TEAM: LanceOutcome
LANCE_OUTCOME_SKIPPED: LanceOutcome
LANCE_OUTCOME_ORDAGO: LanceOutcome
LANCE_OUTCOME_NOT_PLAYED: LanceOutcome
JUEGO_REAL_UNSPECIFIED: JuegoReal
JUEGO_REAL_OFF: JuegoReal
JUEGO_REAL_ANY_TEN_CARD: JuegoReal
JUEGO_REAL_FIGURE_NO_THREE: JuegoReal
JUEGO_REAL_SOTA_ONLY: JuegoReal
SIGNAL_MODE_UNSPECIFIED: SignalMode
SIGNAL_MODE_PUBLIC: SignalMode
SIGNAL_MODE_OFF: SignalMode
SIGNAL_MODE_PARTNER_WITH_INTERCEPTION: SignalMode
MUS_CORRIDO_UNSPECIFIED: MusCorrido
MUS_CORRIDO_OFF: MusCorrido
MUS_CORRIDO_FIRST_HAND_OF_MATCH: MusCorrido
MUS_CORRIDO_FIRST_HAND_OF_EACH_GAME: MusCorrido

class Card(_message.Message):
    __slots__ = ("rank", "suit")
    RANK_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    rank: Rank
    suit: Suit
    def __init__(self, rank: _Optional[_Union[Rank, str]] = ..., suit: _Optional[_Union[Suit, str]] = ...) -> None: ...

class Hand(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("mus", "no_mus", "discard", "paso", "envido", "quiero", "no_quiero", "ordago", "queremos", "no_queremos")
    MUS_FIELD_NUMBER: _ClassVar[int]
    NO_MUS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    PASO_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_FIELD_NUMBER: _ClassVar[int]
    QUIERO_FIELD_NUMBER: _ClassVar[int]
    NO_QUIERO_FIELD_NUMBER: _ClassVar[int]
    ORDAGO_FIELD_NUMBER: _ClassVar[int]
    QUEREMOS_FIELD_NUMBER: _ClassVar[int]
    NO_QUEREMOS_FIELD_NUMBER: _ClassVar[int]
    mus: MusAction
    no_mus: NoMusAction
    discard: DiscardAction
    paso: PasoAction
    envido: EnvidoAction
    quiero: QuieroAction
    no_quiero: NoQuieroAction
    ordago: OrdagoAction
    queremos: QueremosAction
    no_queremos: NoQueremosAction
    def __init__(self, mus: _Optional[_Union[MusAction, _Mapping]] = ..., no_mus: _Optional[_Union[NoMusAction, _Mapping]] = ..., discard: _Optional[_Union[DiscardAction, _Mapping]] = ..., paso: _Optional[_Union[PasoAction, _Mapping]] = ..., envido: _Optional[_Union[EnvidoAction, _Mapping]] = ..., quiero: _Optional[_Union[QuieroAction, _Mapping]] = ..., no_quiero: _Optional[_Union[NoQuieroAction, _Mapping]] = ..., ordago: _Optional[_Union[OrdagoAction, _Mapping]] = ..., queremos: _Optional[_Union[QueremosAction, _Mapping]] = ..., no_queremos: _Optional[_Union[NoQueremosAction, _Mapping]] = ...) -> None: ...

class MusAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NoMusAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DiscardAction(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class PasoAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EnvidoAction(_message.Message):
    __slots__ = ("amount",)
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    amount: int
    def __init__(self, amount: _Optional[int] = ...) -> None: ...

class QuieroAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NoQuieroAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OrdagoAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class QueremosAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NoQueremosAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("mus", "no_mus", "discard", "paso", "envido", "quiero", "no_quiero", "ordago", "queremos", "no_queremos")
    MUS_FIELD_NUMBER: _ClassVar[int]
    NO_MUS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    PASO_FIELD_NUMBER: _ClassVar[int]
    ENVIDO_FIELD_NUMBER: _ClassVar[int]
    QUIERO_FIELD_NUMBER: _ClassVar[int]
    NO_QUIERO_FIELD_NUMBER: _ClassVar[int]
    ORDAGO_FIELD_NUMBER: _ClassVar[int]
    QUEREMOS_FIELD_NUMBER: _ClassVar[int]
    NO_QUEREMOS_FIELD_NUMBER: _ClassVar[int]
    mus: MusAction
    no_mus: NoMusAction
    discard: DiscardRange
    paso: PasoAction
    envido: EnvidoRange
    quiero: QuieroAction
    no_quiero: NoQuieroAction
    ordago: OrdagoAction
    queremos: QueremosAction
    no_queremos: NoQueremosAction
    def __init__(self, mus: _Optional[_Union[MusAction, _Mapping]] = ..., no_mus: _Optional[_Union[NoMusAction, _Mapping]] = ..., discard: _Optional[_Union[DiscardRange, _Mapping]] = ..., paso: _Optional[_Union[PasoAction, _Mapping]] = ..., envido: _Optional[_Union[EnvidoRange, _Mapping]] = ..., quiero: _Optional[_Union[QuieroAction, _Mapping]] = ..., no_quiero: _Optional[_Union[NoQuieroAction, _Mapping]] = ..., ordago: _Optional[_Union[OrdagoAction, _Mapping]] = ..., queremos: _Optional[_Union[QueremosAction, _Mapping]] = ..., no_queremos: _Optional[_Union[NoQueremosAction, _Mapping]] = ...) -> None: ...

class EnvidoRange(_message.Message):
    __slots__ = ("min_amount", "max_amount")
    MIN_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    min_amount: int
    max_amount: int
    def __init__(self, min_amount: _Optional[int] = ..., max_amount: _Optional[int] = ...) -> None: ...

class DiscardRange(_message.Message):
    __slots__ = ("cards", "min_count", "max_count")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    MIN_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_COUNT_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    min_count: int
    max_count: int
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., min_count: _Optional[int] = ..., max_count: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("mus_call", "discard", "replacements", "reshuffle", "declaration", "lance_start", "bet", "deje", "lance_end", "signal")
    MUS_CALL_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLE_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_FIELD_NUMBER: _ClassVar[int]
    LANCE_START_FIELD_NUMBER: _ClassVar[int]
    BET_FIELD_NUMBER: _ClassVar[int]
    DEJE_FIELD_NUMBER: _ClassVar[int]
    LANCE_END_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    mus_call: MusCallEvent
    discard: DiscardEvent
    replacements: ReplacementsEvent
    reshuffle: ReshuffleEvent
    declaration: DeclarationEvent
    lance_start: LanceStartEvent
    bet: BetEvent
    deje: DejeEvent
    lance_end: LanceEndEvent
    signal: SignalEvent
    def __init__(self, mus_call: _Optional[_Union[MusCallEvent, _Mapping]] = ..., discard: _Optional[_Union[DiscardEvent, _Mapping]] = ..., replacements: _Optional[_Union[ReplacementsEvent, _Mapping]] = ..., reshuffle: _Optional[_Union[ReshuffleEvent, _Mapping]] = ..., declaration: _Optional[_Union[DeclarationEvent, _Mapping]] = ..., lance_start: _Optional[_Union[LanceStartEvent, _Mapping]] = ..., bet: _Optional[_Union[BetEvent, _Mapping]] = ..., deje: _Optional[_Union[DejeEvent, _Mapping]] = ..., lance_end: _Optional[_Union[LanceEndEvent, _Mapping]] = ..., signal: _Optional[_Union[SignalEvent, _Mapping]] = ...) -> None: ...

class MusCallEvent(_message.Message):
    __slots__ = ("seat", "wants_mus")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    WANTS_MUS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    wants_mus: bool
    def __init__(self, seat: _Optional[int] = ..., wants_mus: _Optional[bool] = ...) -> None: ...

class DiscardEvent(_message.Message):
    __slots__ = ("seat", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class ReplacementsEvent(_message.Message):
    __slots__ = ("round",)
    ROUND_FIELD_NUMBER: _ClassVar[int]
    round: int
    def __init__(self, round: _Optional[int] = ...) -> None: ...

class ReshuffleEvent(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: int
    def __init__(self, cards: _Optional[int] = ...) -> None: ...

class DeclarationEvent(_message.Message):
    __slots__ = ("seat", "lance", "has")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LANCE_FIELD_NUMBER: _ClassVar[int]
    HAS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    lance: Lance
    has: bool
    def __init__(self, seat: _Optional[int] = ..., lance: _Optional[_Union[Lance, str]] = ..., has: _Optional[bool] = ...) -> None: ...

class LanceStartEvent(_message.Message):
    __slots__ = ("lance",)
    LANCE_FIELD_NUMBER: _ClassVar[int]
    lance: Lance
    def __init__(self, lance: _Optional[_Union[Lance, str]] = ...) -> None: ...

class BetEvent(_message.Message):
    __slots__ = ("seat", "lance", "action")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LANCE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    lance: Lance
    action: Action
    def __init__(self, seat: _Optional[int] = ..., lance: _Optional[_Union[Lance, str]] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class DejeEvent(_message.Message):
    __slots__ = ("team", "points")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    team: int
    points: int
    def __init__(self, team: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class LanceEndEvent(_message.Message):
    __slots__ = ("lance", "outcome")
    LANCE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    lance: Lance
    outcome: LanceOutcome
    def __init__(self, lance: _Optional[_Union[Lance, str]] = ..., outcome: _Optional[_Union[LanceOutcome, str]] = ...) -> None: ...

class SignalEvent(_message.Message):
    __slots__ = ("seat", "sena")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SENA_FIELD_NUMBER: _ClassVar[int]
    seat: int
    sena: Sena
    def __init__(self, seat: _Optional[int] = ..., sena: _Optional[_Union[Sena, str]] = ...) -> None: ...

class Rules(_message.Message):
    __slots__ = ("players", "kings", "target_points", "games_to_win", "vacas_to_win", "juego_real", "signals", "interception_p", "signal_timing_rules", "mus_corrido", "plural_answers_bind_partner", "max_stake", "max_mus_rounds")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    KINGS_FIELD_NUMBER: _ClassVar[int]
    TARGET_POINTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_TO_WIN_FIELD_NUMBER: _ClassVar[int]
    VACAS_TO_WIN_FIELD_NUMBER: _ClassVar[int]
    JUEGO_REAL_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    INTERCEPTION_P_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_TIMING_RULES_FIELD_NUMBER: _ClassVar[int]
    MUS_CORRIDO_FIELD_NUMBER: _ClassVar[int]
    PLURAL_ANSWERS_BIND_PARTNER_FIELD_NUMBER: _ClassVar[int]
    MAX_STAKE_FIELD_NUMBER: _ClassVar[int]
    MAX_MUS_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    players: int
    kings: int
    target_points: int
    games_to_win: int
    vacas_to_win: int
    juego_real: JuegoReal
    signals: SignalMode
    interception_p: float
    signal_timing_rules: bool
    mus_corrido: MusCorrido
    plural_answers_bind_partner: bool
    max_stake: int
    max_mus_rounds: int
    def __init__(self, players: _Optional[int] = ..., kings: _Optional[int] = ..., target_points: _Optional[int] = ..., games_to_win: _Optional[int] = ..., vacas_to_win: _Optional[int] = ..., juego_real: _Optional[_Union[JuegoReal, str]] = ..., signals: _Optional[_Union[SignalMode, str]] = ..., interception_p: _Optional[float] = ..., signal_timing_rules: _Optional[bool] = ..., mus_corrido: _Optional[_Union[MusCorrido, str]] = ..., plural_answers_bind_partner: _Optional[bool] = ..., max_stake: _Optional[int] = ..., max_mus_rounds: _Optional[int] = ...) -> None: ...

class LanceResult(_message.Message):
    __slots__ = ("lance", "outcome", "stake", "bet_team", "deje", "winner_seat", "winner_team", "points", "stake_points", "value_points", "counted")
    LANCE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    BET_TEAM_FIELD_NUMBER: _ClassVar[int]
    DEJE_FIELD_NUMBER: _ClassVar[int]
    WINNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    STAKE_POINTS_FIELD_NUMBER: _ClassVar[int]
    VALUE_POINTS_FIELD_NUMBER: _ClassVar[int]
    COUNTED_FIELD_NUMBER: _ClassVar[int]
    lance: Lance
    outcome: LanceOutcome
    stake: int
    bet_team: int
    deje: int
    winner_seat: int
    winner_team: int
    points: int
    stake_points: int
    value_points: int
    counted: bool
    def __init__(self, lance: _Optional[_Union[Lance, str]] = ..., outcome: _Optional[_Union[LanceOutcome, str]] = ..., stake: _Optional[int] = ..., bet_team: _Optional[int] = ..., deje: _Optional[int] = ..., winner_seat: _Optional[int] = ..., winner_team: _Optional[int] = ..., points: _Optional[int] = ..., stake_points: _Optional[int] = ..., value_points: _Optional[int] = ..., counted: _Optional[bool] = ...) -> None: ...

class HandResult(_message.Message):
    __slots__ = ("game", "hand", "dealer", "mano", "hands", "lances", "scores_before", "scores_after", "game_over", "game_winner", "ended_by", "has_pares", "has_juego")
    GAME_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    MANO_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    LANCES_FIELD_NUMBER: _ClassVar[int]
    SCORES_BEFORE_FIELD_NUMBER: _ClassVar[int]
    SCORES_AFTER_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    GAME_WINNER_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    HAS_PARES_FIELD_NUMBER: _ClassVar[int]
    HAS_JUEGO_FIELD_NUMBER: _ClassVar[int]
    game: int
    hand: int
    dealer: int
    mano: int
    hands: _containers.RepeatedCompositeFieldContainer[Hand]
    lances: _containers.RepeatedCompositeFieldContainer[LanceResult]
    scores_before: _containers.RepeatedScalarFieldContainer[int]
    scores_after: _containers.RepeatedScalarFieldContainer[int]
    game_over: bool
    game_winner: int
    ended_by: str
    has_pares: _containers.RepeatedScalarFieldContainer[bool]
    has_juego: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, game: _Optional[int] = ..., hand: _Optional[int] = ..., dealer: _Optional[int] = ..., mano: _Optional[int] = ..., hands: _Optional[_Iterable[_Union[Hand, _Mapping]]] = ..., lances: _Optional[_Iterable[_Union[LanceResult, _Mapping]]] = ..., scores_before: _Optional[_Iterable[int]] = ..., scores_after: _Optional[_Iterable[int]] = ..., game_over: _Optional[bool] = ..., game_winner: _Optional[int] = ..., ended_by: _Optional[str] = ..., has_pares: _Optional[_Iterable[bool]] = ..., has_juego: _Optional[_Iterable[bool]] = ...) -> None: ...
