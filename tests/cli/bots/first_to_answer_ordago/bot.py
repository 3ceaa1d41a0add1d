"""A student's bot (from an organiser's trial of the docs): it never bids órdago, and
reads the answers already given to a live órdago as if there were always one, which
fails (IndexError) when it is the first of its team to answer. Against itself it never
meets an órdago, so a check that only plays it against itself passes it
(tests/cli/test_check_steps.py)."""

from mus_sdk import NO_MUS, PASO, Action, Bot, Observation, serve


class FirstToAnswerOrdago(Bot):
    name = "first-to-answer-ordago"

    def decide(self, obs: Observation) -> Action:
        legal = obs.legal_actions
        if obs.bet is not None and obs.bet.is_ordago:
            _ = obs.bet_answers[0]  # the bug: no answer yet when it is the first to answer
        if NO_MUS in legal:
            return NO_MUS
        return PASO if PASO in legal else legal.fixed[0]


if __name__ == "__main__":
    serve(FirstToAnswerOrdago())
