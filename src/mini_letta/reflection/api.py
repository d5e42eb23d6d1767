"""Reflection's face: the verbs and records a front end uses; the rest of reflection/ is private.

The CLI imports reflection only through this module (tests/unit/test_architecture.py fails on
an import that bypasses it). Each name is loaded from the module that owns it on first use, so
asking for `ReflectionOutcome` does not load the run machinery and a plain turn stays cheap
(tests/cli/test_lazy_imports_cli.py).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: this module stays free to import
if TYPE_CHECKING:
    from mini_letta.reflection.backlog import BacklogPlan as BacklogPlan
    from mini_letta.reflection.backlog import BacklogProgress as BacklogProgress
    from mini_letta.reflection.backlog import BacklogResult as BacklogResult
    from mini_letta.reflection.backlog import plan_backlog as plan_backlog
    from mini_letta.reflection.backlog import reflect_backlog as reflect_backlog
    from mini_letta.reflection.budget_notice import changed_paths as changed_paths
    from mini_letta.reflection.budget_notice import over_budget_notices as over_budget_notices
    from mini_letta.reflection.decide import accept_rejected_run as accept
    from mini_letta.reflection.decide import discard_rejected_run as discard
    from mini_letta.reflection.eval_cases import builtin_suite as builtin_suite
    from mini_letta.reflection.eval_cases import load_suite as load_suite
    from mini_letta.reflection.evaluation import render_table as render_table
    from mini_letta.reflection.evaluation import run_suite as evaluate
    from mini_letta.reflection.gate_eval import builtin_gate_suite as builtin_gate_suite
    from mini_letta.reflection.gate_eval import render_gate_report as render_gate_report
    from mini_letta.reflection.gate_eval import run_gate_suite as evaluate_gate
    from mini_letta.reflection.health import AgentHealth as AgentHealth
    from mini_letta.reflection.health import gather_health as gather_health
    from mini_letta.reflection.launcher import drained_after as drained_after
    from mini_letta.reflection.launcher import launch_automatic as launch_automatic
    from mini_letta.reflection.outbox import post_automatic_outcome as post_automatic_outcome
    from mini_letta.reflection.outbox import post_outcome as post_outcome
    from mini_letta.reflection.outbox import take_outcomes as take_outcomes
    from mini_letta.reflection.outcome import Queued as Queued
    from mini_letta.reflection.outcome import ReflectionOutcome as ReflectionOutcome
    from mini_letta.reflection.outcome import RunTrigger as RunTrigger
    from mini_letta.reflection.outcome import skip_message as skip_message
    from mini_letta.reflection.provenance import blame_file as blame_file
    from mini_letta.reflection.provenance import why_line as why_line
    from mini_letta.reflection.records import RunRecord as RunRecord
    from mini_letta.reflection.records import failure_summary as failure_summary
    from mini_letta.reflection.records import is_run_id as is_run_id
    from mini_letta.reflection.records import load_run_record as load_run
    from mini_letta.reflection.records import scan_run_records as list_runs
    from mini_letta.reflection.records import went_wrong as went_wrong
    from mini_letta.reflection.report import describe_run as describe_run
    from mini_letta.reflection.run import LaunchOptions as LaunchOptions
    from mini_letta.reflection.run import launch_multi_reflection as launch_many
    from mini_letta.reflection.run import launch_reflection as launch
    from mini_letta.reflection.run import preview_reflection as preview
    from mini_letta.reflection.session import Mode as Mode
    from mini_letta.reflection.session import SpawnRequest as SpawnRequest
    from mini_letta.reflection.session import hooked_launch as hooked_launch
    from mini_letta.reflection.settings import Scope as Scope
    from mini_letta.reflection.settings import build_settings_patch as build_settings_patch
    from mini_letta.reflection.settings import layer_settings as layer_settings
    from mini_letta.reflection.settings import layer_sources as layer_sources
    from mini_letta.reflection.settings import load_reflection_mode as load_reflection_mode
    from mini_letta.reflection.settings import load_reflection_settings as load_settings
    from mini_letta.reflection.settings import load_settings_layers as load_settings_layers
    from mini_letta.reflection.settings import render_settings_json as render_settings_json
    from mini_letta.reflection.settings import save_reflection_settings as save_settings
    from mini_letta.reflection.trigger import BackgroundLaunch as BackgroundLaunch
    from mini_letta.reflection.trigger import PostTurnOutcome as PostTurnOutcome
    from mini_letta.reflection.undo import undo_reflection_run as undo
    from mini_letta.reflection.upkeep import with_dead_runs_interrupted as with_dead_runs

# face name -> (the module that owns it, its name there)
FACE: dict[str, tuple[str, str]] = {
    "launch": ("run", "launch_reflection"),
    "launch_many": ("run", "launch_multi_reflection"),
    "preview": ("run", "preview_reflection"),
    "LaunchOptions": ("run", "LaunchOptions"),
    "launch_automatic": ("launcher", "launch_automatic"),
    "drained_after": ("launcher", "drained_after"),
    "undo": ("undo", "undo_reflection_run"),
    "accept": ("decide", "accept_rejected_run"),
    "discard": ("decide", "discard_rejected_run"),
    "list_runs": ("records", "scan_run_records"),
    "with_dead_runs": ("upkeep", "with_dead_runs_interrupted"),
    "plan_backlog": ("backlog", "plan_backlog"),
    "reflect_backlog": ("backlog", "reflect_backlog"),
    "BacklogPlan": ("backlog", "BacklogPlan"),
    "BacklogProgress": ("backlog", "BacklogProgress"),
    "BacklogResult": ("backlog", "BacklogResult"),
    "load_run": ("records", "load_run_record"),
    "RunRecord": ("records", "RunRecord"),
    "is_run_id": ("records", "is_run_id"),
    "failure_summary": ("records", "failure_summary"),
    "went_wrong": ("records", "went_wrong"),
    "describe_run": ("report", "describe_run"),
    "gather_health": ("health", "gather_health"),
    "AgentHealth": ("health", "AgentHealth"),
    "load_settings": ("settings", "load_reflection_settings"),
    "save_settings": ("settings", "save_reflection_settings"),
    "build_settings_patch": ("settings", "build_settings_patch"),
    "render_settings_json": ("settings", "render_settings_json"),
    "layer_settings": ("settings", "layer_settings"),
    "layer_sources": ("settings", "layer_sources"),
    "load_reflection_mode": ("settings", "load_reflection_mode"),
    "load_settings_layers": ("settings", "load_settings_layers"),
    "evaluate": ("evaluation", "run_suite"),
    "render_table": ("evaluation", "render_table"),
    "builtin_suite": ("eval_cases", "builtin_suite"),
    "load_suite": ("eval_cases", "load_suite"),
    "evaluate_gate": ("gate_eval", "run_gate_suite"),
    "builtin_gate_suite": ("gate_eval", "builtin_gate_suite"),
    "render_gate_report": ("gate_eval", "render_gate_report"),
    "over_budget_notices": ("budget_notice", "over_budget_notices"),
    "changed_paths": ("budget_notice", "changed_paths"),
    "blame_file": ("provenance", "blame_file"),
    "why_line": ("provenance", "why_line"),
    "take_outcomes": ("outbox", "take_outcomes"),
    "post_outcome": ("outbox", "post_outcome"),
    "post_automatic_outcome": ("outbox", "post_automatic_outcome"),
    "ReflectionOutcome": ("outcome", "ReflectionOutcome"),
    "Queued": ("outcome", "Queued"),
    "skip_message": ("outcome", "skip_message"),
    "BackgroundLaunch": ("trigger", "BackgroundLaunch"),
    "SpawnRequest": ("session", "SpawnRequest"),
    "hooked_launch": ("session", "hooked_launch"),
    "Mode": ("session", "Mode"),
    "RunTrigger": ("outcome", "RunTrigger"),
    "Scope": ("settings", "Scope"),
}
__all__ = [  # PostTurnOutcome is for annotations only
    "AgentHealth",
    "BacklogPlan",
    "BacklogProgress",
    "BacklogResult",
    "BackgroundLaunch",
    "LaunchOptions",
    "Mode",
    "PostTurnOutcome",
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
