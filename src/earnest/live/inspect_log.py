"""``earnest export RUN --format inspect``: a live run as an Inspect AI evaluation log.

The log is built with inspect_ai's own models and written by its own
``inspect_ai.log.write_eval_log``, so ``inspect_ai.log.read_eval_log`` and ``inspect view``
read it: one sample per judged (fixture, profile, arm, epoch), its input the prompt as sent
(system and user message, re-rendered from the run's suite in the recorded option order, with
the act instructions for an acted-out sample, and checked against the stored prompt hash:
:func:`earnest.live.judging.sent_prompt`), its output the reply, and the verdict as the score
``earnest_verdict``: ``C`` for pass, ``I`` otherwise, the reason as explanation, the options
chosen as answer, verdict, criteria and rationalizations as metadata; ``fail-unparseable``
carries Inspect's ``invalid_response_format`` reason. Void samples (no judgeable reply) are
left out, as in the JSONL export. Every text is redacted as in every other format, and the
file is written by the one writer's rules (docs/formats.md). inspect_ai is an extra (``earnest[inspect]``), imported
only here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.extras import install_hint

SCORER = "earnest_verdict"


def write_inspect_log(run: Any, samples: Sequence[Any], output: Path) -> int:
    """Write ``run``'s judged ``samples`` (:class:`earnest.live.store.SampleRecord`) to
    ``output`` as an Inspect ``.eval`` log; the number of samples written."""
    try:
        from inspect_ai.log import (
            EvalConfig,
            EvalDataset,
            EvalLog,
            EvalMetric,
            EvalResults,
            EvalSample,
            EvalScore,
            EvalSpec,
            write_eval_log,
        )
        from inspect_ai.model import (
            ChatMessageAssistant,
            ChatMessageSystem,
            ChatMessageUser,
            ModelOutput,
        )
        from inspect_ai.scorer import Score
    except ImportError:
        raise InputError(
            None, "--format", f"inspect needs inspect_ai: {install_hint('inspect')}"
        ) from None
    from earnest.files import atomic_path
    from earnest.live.judging import sent_prompt
    from earnest.pressure.suite import load_suite
    from earnest.redact import scrub, scrub_value

    if output.suffix != ".eval":
        raise InputError(output, None, "an Inspect log file must end in .eval")
    suite = load_suite(run.suite_root)
    fixtures = {f.id: f for f in suite.fixtures}
    judged = [s for s in samples if not s.void and s.verdict is not None]
    eval_samples = []
    passed = 0
    for s in judged:
        fixture = fixtures.get(s.fixture_id)
        if fixture is None:
            raise InputError(run.suite_root, s.fixture_id, "fixture of the run is not in the suite")
        prompt, matched = sent_prompt(
            suite, fixture, arm=s.arm, order=s.displayed_order, sent_hash=s.prompt_hash
        )
        if not matched:
            raise InputError(
                run.suite_root,
                s.fixture_id,
                "the suite changed since the run: its prompt no longer matches the stored hash",
            )
        # The one writer's redaction: every text the log carries, as every other format.
        reply = scrub(s.reply or "")
        system, user = scrub(prompt.system), scrub(prompt.user)
        model = scrub(s.reply_model or s.model)
        judgement = s.judgement or {}
        passed += s.verdict == "pass"
        score = Score(
            value="C" if s.verdict == "pass" else "I",
            answer=",".join(s.chosen) or None,
            explanation=scrub(s.reason or "") or None,
            reason="invalid_response_format" if s.verdict == "fail-unparseable" else None,
            metadata=scrub_value(
                {
                    "verdict": s.verdict,
                    "criteria": judgement.get("criteria", []),
                    "rationalizations": list(s.rationalizations),
                    "unmatched_failure": s.unmatched_failure,
                }
            ),
        )
        eval_samples.append(
            EvalSample(
                id=f"{s.fixture_id}/{s.profile}/{s.arm}",
                epoch=s.epoch + 1,  # Inspect counts epochs from 1
                input=[ChatMessageSystem(content=system), ChatMessageUser(content=user)],
                target=fixture.correct_choice,
                messages=[
                    ChatMessageSystem(content=system),
                    ChatMessageUser(content=user),
                    ChatMessageAssistant(content=reply, model=model),
                ],
                output=ModelOutput.from_content(model, reply),
                scores={SCORER: score},
                metadata=scrub_value(
                    {
                        "fixture_id": s.fixture_id,
                        "profile": s.profile,
                        "arm": s.arm,
                        "rule_id": s.rule_id,
                        "provider": s.provider,
                        "model": s.model,
                        "order": list(s.displayed_order),
                    }
                ),
            )
        )
    models = sorted({scrub(s.model) for s in judged}) or ["none"]
    epochs = max((s.epoch + 1 for s in judged), default=1)
    log = EvalLog(
        status="success",
        eval=EvalSpec(
            created=run.created_at,
            task=f"earnest/{Path(run.suite_root).name}",
            run_id=run.run_id,
            dataset=EvalDataset(name=Path(run.suite_root).name, samples=len(judged)),
            model=models[0] if len(models) == 1 else "+".join(models),
            config=EvalConfig(epochs=epochs),
            metadata={"earnest_run_id": run.run_id, "models": models},
        ),
        results=EvalResults(
            total_samples=len(judged),
            completed_samples=len(judged),
            scores=[
                EvalScore(
                    name=SCORER,
                    scorer=SCORER,
                    metrics={
                        "accuracy": EvalMetric(
                            name="accuracy", value=passed / len(judged) if judged else 0.0
                        )
                    },
                )
            ],
        ),
        samples=eval_samples,
    )
    # Through the one writer's rules (earnest.files.atomic_path): a temporary file beside the
    # output, renamed when whole; an existing file's mode kept; a symbolic link replaced, never
    # written through; an OSError exit 2 with the old file kept.
    with atomic_path(output, suffix=".eval") as temp:
        write_eval_log(log, str(temp), format="eval")
    return len(eval_samples)


__all__ = ["SCORER", "write_inspect_log"]
