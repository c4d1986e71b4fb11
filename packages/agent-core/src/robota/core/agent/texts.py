"""Every string the agent loop can place in front of a model (seed 000, "System Prompt": each
defaults to neutral mechanism text and can be overridden by a product layer).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AgentTexts"]


@dataclass(frozen=True, kw_only=True, slots=True)
class AgentTexts:
    """Model-facing texts of the loop. Pass ``Agent(texts=AgentTexts(...))`` to reword them.

    Placeholders in braces are filled with :meth:`str.format`.

    Attributes:
        interrupted_annotation: Appended to an interrupted assistant message's text when history
            is sent back to a model.
        interrupted_tool_result: Result of a tool call that was queued or running when the run
            was cancelled (also of every call of a response that completed but whose round was
            cancelled before its batch ran).
        refused_tool_result: Result of every call of a response the run refused (cut off at
            the output token limit or stopped by a content filter), so no call is left without
            a result. ``{finish_reason}`` is the normalized finish reason.
        summary_instruction: Request-only user instruction of the forced summary call after
            the round budget is spent (never committed to history).
        summary_fallback: Returned as the run's text when the forced summary produced no text.
        unknown_tool: Result of a call to a tool that is not available. ``{name}``,
            ``{available}``.
        unknown_tool_final: Request-only instruction of the final no-tools call after unknown
            tool calls repeated. ``{calls}`` names the calls never executed.
        invalid_arguments: Result for arguments that failed validation. ``{name}``, ``{issues}``.
            Followed by ``retry_allowed`` or ``stop_retrying``.
        tool_retry: Result of a tool body that raised ``ModelRetry``. ``{name}``, ``{message}``.
            Followed by ``retry_allowed`` or ``stop_retrying``.
        retry_allowed: Appended to ``invalid_arguments``/``tool_retry`` while the tool's retry
            budget lasts. ``{name}``, ``{remaining}`` (retries left, >= 1).
        stop_retrying: Appended instead once the tool's retry budget is spent (it says only to
            stop). ``{name}``.
        identical_input: Result of every call of a batch refused by the identical-input guard.
            ``{name}``, ``{count}``.
        tool_result_budget: Replaces tool results once the context budget is crossed.
        output_instruction: States the schema of a structured answer. ``{schema}``.
        output_retry: Feedback committed as a user message when the answer did not validate.
            ``{issues}``, ``{schema}``.
        output_rejected: Feedback committed as a user message when an output function or
            validator raised ``ModelRetry``. ``{issues}`` (the message), ``{schema}``.
    """

    interrupted_annotation: str = "[response interrupted]"
    interrupted_tool_result: str = "interrupted by user"
    cancelled_tool_result: str = "cancelled: the user stopped this tool call"
    refused_tool_result: str = (
        "Tool call not executed: the response that made it ended with finish reason "
        "'{finish_reason}' and was not used."
    )
    summary_instruction: str = (
        "The step limit for this task has been reached. Tools are no longer available. "
        "Reply with a summary of the work done so far and what remains."
    )
    summary_fallback: str = "The step limit was reached before a final answer was produced."
    unknown_tool: str = (
        "Tool call skipped: no tool named '{name}' is available. Available tools: {available}."
    )
    unknown_tool_final: str = (
        "Tools are no longer available. These tool calls were never executed because no such "
        "tools exist: {calls}. Reply with a final answer without tools."
    )
    invalid_arguments: str = "Invalid arguments for tool '{name}':\n{issues}"
    tool_retry: str = "Tool '{name}' asks for a retry:\n{message}"
    retry_allowed: str = (
        "\nFix the problem and call '{name}' again ({remaining} retry(s) left for this tool)."
    )
    stop_retrying: str = "\nThe retry limit for tool '{name}' is spent: stop calling it."
    identical_input: str = (
        "Tool call not executed: '{name}' was already called {count} times with identical "
        "arguments in this run."
    )
    tool_result_budget: str = (
        "Tool result omitted: the conversation is close to the model's context window."
    )
    output_instruction: str = (
        "Respond with only a JSON value that validates against this JSON Schema:\n{schema}"
    )
    output_retry: str = (
        "The previous response did not validate against the required JSON Schema.\n"
        "Issues:\n{issues}\nRespond again with only a JSON value that validates against:\n"
        "{schema}"
    )
    output_rejected: str = (
        "The previous response was rejected:\n{issues}\nRespond again with only a JSON value "
        "that validates against:\n{schema}"
    )
