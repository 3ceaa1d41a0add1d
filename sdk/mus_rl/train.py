"""Train a policy for bots/learned: REINFORCE (policy gradient) in the Gymnasium env.

    python -m mus_rl.train --out bots/learned/weights.npz

(the defaults are the run that made the committed bots/learned/weights.npz; docs/rl.md)

The learner holds one seat; its partner and opponents are SDK bots (``--partner``,
``--opponents``; ``self`` is a copy of the learner sampling from its current policy).
``--opponents`` may list several, comma-separated: the batches take them in turn (a
policy trained against one bot only learns to exploit it: against ``rulebot`` alone it
learned to decline every bet, which ``random``'s constant betting punishes). Episodes are single hands and the reward is the
hand's stone difference over ``target_points`` (:class:`mus_rl.gym_env.MusGymEnv`).
Every ``--eval-every`` batches the greedy policy plays ``--eval-hands`` hands against
the same bots; the best evaluated weights are saved. Plain numpy, one core.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from mus_sdk import split_decision

from mus_rl.gym_env import MusGymEnv
from mus_rl.policy import LinearPolicy, PolicyBot


class Adam:
    """Adam ascent on a dict of arrays."""

    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        """One ascent step along ``grads``."""
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9**self.t)
            vh = self.v[k] / (1 - 0.999**self.t)
            params[k] += (self.lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)


def _bot(spec: str, policy: LinearPolicy) -> str | PolicyBot:
    return PolicyBot(policy, sample=True) if spec == "self" else spec


def play_hand(env: MusGymEnv, policy: LinearPolicy, rng: np.random.Generator | None, seed: int,
              trace: list[tuple[np.ndarray, np.ndarray, int]] | None) -> float:
    """One episode; the learner's steps appended to ``trace``; the total reward."""
    obs, _ = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        x, mask = obs["observation"], obs["action_mask"]
        a = policy.act(x, mask, rng)
        if trace is not None:
            trace.append((x, mask, a))
        obs, r, done, _, _ = env.step(a)
        total += r
    return total


def gradients(policy: LinearPolicy, steps: list[tuple[np.ndarray, np.ndarray, int, float]], entropy: float) -> dict[str, np.ndarray]:
    """The policy gradient of ``sum(advantage * log p(a))`` (plus an entropy bonus)."""
    P = policy.params
    g = {k: np.zeros_like(v) for k, v in P.items()}
    for x, mask, a, adv in steps:
        h = policy.features(x)
        p = policy.probabilities(x, mask)
        d = -p * adv
        d[a] += adv
        if entropy:
            logp = np.log(np.where(p > 0, p, 1.0))
            d += entropy * -p * (logp - (p * logp).sum())
        g["W2"] += np.outer(d, h)
        g["b2"] += d
        if policy.hidden > 0:
            dz = (P["W2"].T @ d) * (1 - h * h)
            g["W1"] += np.outer(dz, x)
            g["b1"] += dz
    n = max(len(steps), 1)
    return {k: v / n for k, v in g.items()}


def imitate(policy: LinearPolicy, opt: Adam, teacher: str, opponents: str, hands: int, epochs: int, seed: int) -> None:
    """Behaviour cloning before the policy gradient: play ``hands`` hands in which the
    learner's seat is played by ``teacher`` (a bot), then fit the policy to its
    decisions (cross-entropy, by the same gradient with advantage 1)."""
    from mus_rl.actions import to_index
    from mus_rl.bots import make_bot, sdk_observation

    bot = make_bot(teacher, seed=seed)
    data: list[tuple[np.ndarray, np.ndarray, int, float]] = []
    envs = [MusGymEnv(partner=teacher, opponents=spec) for spec in opponents.split(",")]
    for i in range(hands):
        env = envs[i % len(envs)]
        obs, _ = env.reset(seed=seed + i)
        done = False
        while not done:
            view = env.state.view(env.seat)
            index = to_index(split_decision(bot.decide(sdk_observation(view)))[0], view.cards)
            data.append((obs["observation"], obs["action_mask"], index, 1.0))
            obs, _, done, _, _ = env.step(index)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        order = rng.permutation(len(data))
        for k in range(0, len(order), 256):
            opt.step(policy.params, gradients(policy, [data[j] for j in order[k : k + 256]], 0.0))
        print(f"imitation epoch {epoch + 1}: {len(data)} decisions of {teacher}", flush=True)


def evaluate(policy: LinearPolicy, partner: str, opponents: str, hands: int, seed: int) -> float:
    """The greedy policy's mean reward per hand (stones / target) over ``hands`` hands
    against each of the comma-separated ``opponents``: the worst of them."""
    scores = []
    for spec in opponents.split(","):
        env = MusGymEnv(partner=_bot(partner, policy), opponents=_bot(spec, policy))
        scores.append(float(np.mean([play_hand(env, policy, None, seed + i, None) for i in range(hands)])))
    return min(scores)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``python -m mus_rl.train --help``)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=12.0, help="training time budget")
    ap.add_argument("--batches", type=int, default=0, help="stop after this many batches (0: by time)")
    ap.add_argument("--batch", type=int, default=64, help="hands per gradient step")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--entropy", type=float, default=0.01)
    ap.add_argument("--partner", default="rulebot")
    ap.add_argument("--opponents", default="random,rulebot")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--eval-hands", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("bots/learned/weights.npz"))
    ap.add_argument("--init", type=Path, default=None, help="start from these weights")
    ap.add_argument("--imitate", type=int, default=6000, help="first clone --teacher's play over this many hands")
    ap.add_argument("--teacher", default="rulebot")
    ap.add_argument("--imitate-epochs", type=int, default=4)
    args = ap.parse_args(argv)
    policy = LinearPolicy.load(args.init) if args.init else LinearPolicy(hidden=args.hidden, seed=args.seed)
    opt = Adam(policy.params, args.lr)
    if args.imitate:
        imitate(policy, Adam(policy.params, 0.01), args.teacher, args.opponents, args.imitate, args.imitate_epochs,
                args.seed)
    envs = [MusGymEnv(partner=_bot(args.partner, policy), opponents=_bot(spec, policy))
            for spec in args.opponents.split(",")]
    rng = np.random.default_rng(args.seed)
    # A baseline per opponent: the hands' values differ from one opponent to another.
    baselines, best, start, batch, hands = [0.0] * len(envs), -np.inf, time.monotonic(), 0, 0
    while (batch < args.batches) if args.batches else (time.monotonic() - start < 60 * args.minutes):
        steps: list[tuple[np.ndarray, np.ndarray, int, float]] = []
        env = envs[batch % len(envs)]
        for _ in range(args.batch):
            trace: list[tuple[np.ndarray, np.ndarray, int]] = []
            ret = play_hand(env, policy, rng, int(rng.integers(2**62)), trace)
            b = batch % len(envs)
            steps += [(x, m, a, ret - baselines[b]) for x, m, a in trace]
            baselines[b] += 0.01 * (ret - baselines[b])
            hands += 1
        opt.step(policy.params, gradients(policy, steps, args.entropy))
        batch += 1
        if batch % args.eval_every == 0 or (args.batches and batch == args.batches):
            score = evaluate(policy, args.partner, args.opponents, args.eval_hands, 10**9)
            print(f"batch {batch} hands {hands} {time.monotonic() - start:.0f}s: greedy {score:+.4f} per hand (worst opponent)", flush=True)
            if score > best:
                best = score
                policy.save(args.out)
    if best == -np.inf:
        policy.save(args.out)
    print(f"saved {args.out} (best greedy {best:+.4f} per hand vs {args.opponents})")


if __name__ == "__main__":
    main()
