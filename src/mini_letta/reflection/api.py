"""Reflection's face: the verbs and records a front end uses; the rest of reflection/ is private.

The CLI imports reflection only through this module (tests/unit/test_architecture.py fails on
an import that bypasses it). Each name is loaded from the module that owns it on first use, so
asking for `ReflectionOutcome` does not load the run machinery and a plain turn stays cheap
(tests/cli/test_lazy_imports_cli.py).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: this module stays free to import
if TYPE_CHECKING:
    from mini_letta.reflection.evals.eval_cases import builtin_suite as builtin_suite
    from mini_letta.reflection.evals.eval_cases import load_suite as load_suite
    from mini_letta.reflection.evals.evaluation import render_table as render_table
    from mini_letta.reflection.evals.evaluation import run_suite as evaluate
    from mini_letta.reflection.evals.gate_eval import builtin_gate_suite as builtin_gate_suite
    from mini_letta.reflection.evals.gate_eval import render_gate_report as render_gate_report
    from mini_letta.reflection.evals.gate_eval import run_gate_suite as evaluate_gate
    from mini_letta.reflection.gate.budget_notice import changed_paths as changed_paths
    from mini_letta.reflection.gate.budget_notice import over_budget_notices as over_budget_notices
    from mini_letta.reflection.history.decide import accept_rejected_run as accept
    from mini_letta.reflection.history.decide import discard_rejected_run as discard
    from mini_letta.reflection.history.health import AgentHealth as AgentHealth
    from mini_letta.reflection.history.health import gather_health as gather_health
    from mini_letta.reflection.history.provenance import blame_file as blame_file
    from mini_letta.reflection.history.provenance import why_line as why_line
    from mini_letta.reflection.history.report import describe_run as describe_run
    from mini_letta.reflection.history.undo import undo_reflection_run as undo
    from mini_letta.reflection.policy.launcher import drained_after as drained_after
    from mini_letta.reflection.policy.launcher import launch_automatic as launch_automatic
    from mini_letta.reflection.policy.session import Mode as Mode
    from mini_letta.reflection.policy.session import SpawnRequest as SpawnRequest
    from mini_letta.reflection.policy.trigger import BackgroundLaunch as BackgroundLaunch
    from mini_letta.reflection.policy.trigger import PostTurnOutcome as PostTurnOutcome
    from mini_letta.reflection.run.backlog import BacklogPlan as BacklogPlan
    from mini_letta.reflection.run.backlog import BacklogProgress as BacklogProgress
    from mini_letta.reflection.run.backlog import BacklogResult as BacklogResult
    from mini_letta.reflection.run.backlog import plan_backlog as plan_backlog
    from mini_letta.reflection.run.backlog import reflect_backlog as reflect_backlog
    from mini_letta.reflection.run.hooked import hooked_launch as hooked_launch
    from mini_letta.reflection.run.hooked import open_reflect_hooks as open_reflect_hooks
    from mini_letta.reflection.run.launch import launch_multi_reflection as launch_many
    from mini_letta.reflection.run.launch import launch_reflection as launch
    from mini_letta.reflection.run.launch import preview_reflection as preview
    from mini_letta.reflection.run.setup import LaunchOptions as LaunchOptions
    from mini_letta.reflection.state.outbox import post_automatic_outcome as post_automatic_outcome
    from mini_letta.reflection.state.outbox import post_outcome as post_outcome
    from mini_letta.reflection.state.outbox import take_outcomes as take_outcomes
    from mini_letta.reflection.state.outcome import Queued as Queued
    from mini_letta.reflection.state.outcome import ReflectionOutcome as ReflectionOutcome
    from mini_letta.reflection.state.outcome import RunTrigger as RunTrigger
    from mini_letta.reflection.state.outcome import skip_message as skip_message
    from mini_letta.reflection.state.records import RunRecord as RunRecord
    from mini_letta.reflection.state.records import failure_summary as failure_summary
    from mini_letta.reflection.state.records import is_run_id as is_run_id
    from mini_letta.reflection.state.records import load_run_record as load_run
    from mini_letta.reflection.state.records import scan_run_records as list_runs
    from mini_letta.reflection.state.records import went_wrong as went_wrong
    from mini_letta.reflection.state.settings import Scope as Scope
    from mini_letta.reflection.state.settings import build_settings_patch as build_settings_patch
    from mini_letta.reflection.state.settings import layer_settings as layer_settings
    from mini_letta.reflection.state.settings import layer_sources as layer_sources
    from mini_letta.reflection.state.settings import load_reflection_mode as load_reflection_mode
    from mini_letta.reflection.state.settings import load_reflection_settings as load_settings
    from mini_letta.reflection.state.settings import load_settings_layers as load_settings_layers
    from mini_letta.reflection.state.settings import render_settings_json as render_settings_json
    from mini_letta.reflection.state.settings import save_reflection_settings as save_settings
    from mini_letta.reflection.state.upkeep import with_dead_runs_interrupted as with_dead_runs

# face name -> (the module that owns it, its name there)
FACE: dict[str, tuple[str, str]] = {
    "launch": ("run.launch", "launch_reflection"),
    "launch_many": ("run.launch", "launch_multi_reflection"),
    "preview": ("run.launch", "preview_reflection"),
    "LaunchOptions": ("run.setup", "LaunchOptions"),
    "launch_automatic": ("policy.launcher", "launch_automatic"),
    "drained_after": ("policy.launcher", "drained_after"),
    "undo": ("history.undo", "undo_reflection_run"),
    "accept": ("history.decide", "accept_rejected_run"),
    "discard": ("history.decide", "discard_rejected_run"),
    "list_runs": ("state.records", "scan_run_records"),
    "with_dead_runs": ("state.upkeep", "with_dead_runs_interrupted"),
    "plan_backlog": ("run.backlog", "plan_backlog"),
    "reflect_backlog": ("run.backlog", "reflect_backlog"),
    "BacklogPlan": ("run.backlog", "BacklogPlan"),
    "BacklogProgress": ("run.backlog", "BacklogProgress"),
    "BacklogResult": ("run.backlog", "BacklogResult"),
    "load_run": ("state.records", "load_run_record"),
    "RunRecord": ("state.records", "RunRecord"),
    "is_run_id": ("state.records", "is_run_id"),
    "failure_summary": ("state.records", "failure_summary"),
    "went_wrong": ("state.records", "went_wrong"),
    "describe_run": ("history.report", "describe_run"),
    "gather_health": ("history.health", "gather_health"),
    "AgentHealth": ("history.health", "AgentHealth"),
    "load_settings": ("state.settings", "load_reflection_settings"),
    "save_settings": ("state.settings", "save_reflection_settings"),
    "build_settings_patch": ("state.settings", "build_settings_patch"),
    "render_settings_json": ("state.settings", "render_settings_json"),
    "layer_settings": ("state.settings", "layer_settings"),
    "layer_sources": ("state.settings", "layer_sources"),
    "load_reflection_mode": ("state.settings", "load_reflection_mode"),
    "load_settings_layers": ("state.settings", "load_settings_layers"),
    "evaluate": ("evals.evaluation", "run_suite"),
    "render_table": ("evals.evaluation", "render_table"),
    "builtin_suite": ("evals.eval_cases", "builtin_suite"),
    "load_suite": ("evals.eval_cases", "load_suite"),
    "evaluate_gate": ("evals.gate_eval", "run_gate_suite"),
    "builtin_gate_suite": ("evals.gate_eval", "builtin_gate_suite"),
    "render_gate_report": ("evals.gate_eval", "render_gate_report"),
    "over_budget_notices": ("gate.budget_notice", "over_budget_notices"),
    "changed_paths": ("gate.budget_notice", "changed_paths"),
    "blame_file": ("history.provenance", "blame_file"),
    "why_line": ("history.provenance", "why_line"),
    "take_outcomes": ("state.outbox", "take_outcomes"),
    "post_outcome": ("state.outbox", "post_outcome"),
    "post_automatic_outcome": ("state.outbox", "post_automatic_outcome"),
    "ReflectionOutcome": ("state.outcome", "ReflectionOutcome"),
    "Queued": ("state.outcome", "Queued"),
    "skip_message": ("state.outcome", "skip_message"),
    "BackgroundLaunch": ("policy.trigger", "BackgroundLaunch"),
    "SpawnRequest": ("policy.session", "SpawnRequest"),
    "hooked_launch": ("run.hooked", "hooked_launch"),
    "open_reflect_hooks": ("run.hooked", "open_reflect_hooks"),
    "Mode": ("policy.session", "Mode"),
    "RunTrigger": ("state.outcome", "RunTrigger"),
    "Scope": ("state.settings", "Scope"),
}
__all__ = [  # not PostTurnOutcome: a union for annotations only, imported when type checking
    "AgentHealth",
    "BacklogPlan",
    "BacklogProgress",
    "BacklogResult",
    "BackgroundLaunch",
    "LaunchOptions",
    "Mode",
    "Queued",
    "ReflectionOutcome",
    "RunRecord",
    "RunTrigger",
    "Scope",
    "SpawnRequest",
    "accept",
    "blame_file",
    "build_settings_patch",
    "builtin_gate_suite",
    "builtin_suite",
    "changed_paths",
    "describe_run",
    "discard",
    "drained_after",
    "evaluate",
    "evaluate_gate",
    "failure_summary",
    "gather_health",
    "hooked_launch",
    "is_run_id",
    "launch",
    "launch_automatic",
    "launch_many",
    "layer_settings",
    "layer_sources",
    "list_runs",
    "load_reflection_mode",
    "load_run",
    "load_settings",
    "load_settings_layers",
    "load_suite",
    "open_reflect_hooks",
    "plan_backlog",
    "post_automatic_outcome",
    "over_budget_notices",
    "post_outcome",
    "preview",
    "render_gate_report",
    "reflect_backlog",
    "render_settings_json",
    "render_table",
    "save_settings",
    "skip_message",
    "take_outcomes",
    "undo",
    "went_wrong",
    "why_line",
    "with_dead_runs",
]


def __getattr__(name: str) -> object:
    """Load a face name from its module (the builtin `__import__`: importlib costs a turn)."""
    where = FACE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = where
    value: object = getattr(
        __import__(f"mini_letta.reflection.{module}", fromlist=[attribute]), attribute
    )
    globals()[name] = value
    return value
