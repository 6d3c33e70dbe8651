"""``squall run``'s exit status after a run, for CI: too many failed episodes, or a metric under its threshold.

0 done; 3 every episode failed, or more than ``--max-failed`` of them (provider, user or harness faults), or an
outside agent could not be reached in any (its episodes are not scored: the run is not complete); 4 a
``--fail-under METRIC=VALUE`` threshold missed (or the metric is not in the summary). 2 (bad input, a failed
preflight), 130 and 143 are decided before a summary exists.
"""

from __future__ import annotations

from collections.abc import Mapping

from judges.run.run_summary import RunSummary
from sim.agents.outside.errors import OutsideUnreachable
from sim.report.unscored import causes_and_advice

EXIT_TOO_MANY_FAILED = 3
EXIT_BELOW_THRESHOLD = 4


def run_exit_status(
    summary: RunSummary, max_failed: float | None, fail_under: Mapping[str, float], run_id: str
) -> tuple[int, str]:
    """(exit code, the message saying why; empty when 0)."""
    if unreachable := summary.error_codes.get(OutsideUnreachable.code, 0):
        return (
            EXIT_TOO_MANY_FAILED,
            f"the agent could not be reached in {unreachable} of {summary.episodes} episodes (not scored); once it "
            f"answers, --resume --run-id {run_id} plays them again",
        )
    if summary.episodes:
        failed, total = summary.failed_episodes, summary.episodes
        # Each cause with its own advice: a provider's (resume once the endpoint is back) is wrong for a cache miss.
        why = causes_and_advice(summary, run_id)
        if not summary.scored_episodes:
            return EXIT_TOO_MANY_FAILED, f"every episode failed ({failed} of {total}): nothing was scored; {why}"
        if max_failed is not None and failed / total > max_failed:
            return (
                EXIT_TOO_MANY_FAILED,
                f"{failed} of {total} episodes failed ({failed / total:.1%}), more than --max-failed {max_failed:g}; "
                f"{why}",
            )
    flat = summary.flat()
    missed = []
    for metric, threshold in fail_under.items():
        value = flat.get(metric)
        if not isinstance(value, int | float) or isinstance(value, bool):
            known = ", ".join(sorted(k for k, v in flat.items() if isinstance(v, float)))
            missed.append(f"{metric} is not a number in this run's summary (numbers: {known})")
        elif value < threshold:
            missed.append(f"{metric} = {value:.4g} is below --fail-under {threshold:g}")
    if missed:
        return EXIT_BELOW_THRESHOLD, "; ".join(missed)
    return 0, ""
