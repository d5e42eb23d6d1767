"""`merge=explicit`: the primary agent reviews a reflection branch and merges it itself.

The review is a side agent with the primary agent's own system prompt and model, purpose
`merge`, the user's mergeInstructions and the branch diff, and one tool, `reflection_merge`,
which merges the branch exactly as `merge=auto` would (conflicts aborted) or records a
rejection. The harness does not trust the review's word: finalisation checks that the branch
is in main.
"""

from __future__ import annotations

from typing import Any

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock
from mini_letta.home import Home
from mini_letta.llm.base import Provider, ToolSpec
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.agent import RunTranscript, SideAgentSpec, run_side_agent
from mini_letta.reflection.run.finalise import MergeAttempt, Reviewer, ReviewReport, merge_branch
from mini_letta.reflection.run.task import build_merge_task, merge_review_prompt
from mini_letta.reflection.run.worktree import Worktree, branch_diff
from mini_letta.structs import Struct, field
from mini_letta.tools.base import ToolContext, ToolInputError, ToolKind, ToolResult, Toolset

REVIEW_STEPS = 6


class ReflectionMergeTool(Struct):
    parent: GitRepo
    worktree: Worktree
    attempt: MergeAttempt | None = None
    note: str = ""
    spec: ToolSpec = field(
        default=ToolSpec(
            "reflection_merge",
            "Merge the reflection branch into memory (decision 'merge'), or reject it "
            "('reject') with a note saying why.",
            {
                "type": "object",
                "properties": {
                    "decision": {"type": "string", "enum": ["merge", "reject"]},
                    "note": {"type": "string"},
                },
                "required": ["decision"],
            },
        )
    )
    kind: ToolKind = "memory"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        decision = args.get("decision")
        self.note = str(args.get("note") or "").strip()
        if decision == "reject":
            return ToolResult("Rejected: the reflection branch will not be merged.")
        if decision != "merge":
            raise ToolInputError("'decision' must be 'merge' or 'reject'")
        self.attempt = merge_branch(self.parent, self.worktree)
        if self.attempt.merged:
            return ToolResult(f"Merged reflection run {self.worktree.run_id} into memory.")
        if self.attempt.dirty:
            return ToolResult(
                f"Not merged: memory has uncommitted changes ({self.attempt.detail}).", True
            )
        return ToolResult(f"Not merged: {self.attempt.detail or 'the merge failed'}.", True)


class ReviewSetup(Struct, frozen=True):
    home: Home
    agent: AgentRecord
    provider: Provider
    clock: Clock
    run_id: str
    merge_instructions: str
    system_prompt: str


def build_reviewer(setup: ReviewSetup, parent: GitRepo) -> Reviewer:
    """A Reviewer for finalise_worktree that runs the primary agent's merge review."""

    def review(worktree: Worktree, commits: int) -> ReviewReport:
        tool = ReflectionMergeTool(parent, worktree)
        context = ToolContext(
            cwd=parent.path,
            clock=setup.clock,
            agent_id=setup.agent.id,
            memory_dir=parent.path,
        )
        spec = SideAgentSpec(
            purpose="merge",
            agent=setup.agent,
            provider=setup.provider,
            toolset=Toolset((tool,)),
            tool_context=context,
            system_prompt=f"{setup.system_prompt}\n\n{merge_review_prompt()}",
            max_steps=REVIEW_STEPS,
        )
        task = build_merge_task(
            setup.run_id,
            commits,
            branch_diff(parent, worktree),
            setup.merge_instructions,
        )
        transcript = RunTranscript(setup.home, setup.agent.id, setup.run_id, "merge")
        result = run_side_agent(spec, transcript, task, setup.clock)
        return ReviewReport(tool.attempt, note=tool.note or result.text.strip(), error=result.error)

    return review
