"""MCP prompts and resources in ``robota chat`` (issue #18, "resources and prompts usable as
attachable context").

A prompt of a connected MCP server runs as the slash command ``/mcp__<server>__<prompt>``
(the prompt name matched exactly first, else without regard to case when only one prompt of
the server matches so; two prompts differing only in case are refused, listed): its words fill the prompt's declared arguments in
order, or ``name=value`` names one (a word whose ``name`` is not declared is a positional
value); quotes group words (``/mcp__docs__review "a b" lang=go``); a prompt that declares one
argument takes every word as its value. A missing required argument, or more words than
arguments, prints the usage line. The filled prompt (``prompts/get``) is then submitted as the
user's turn: its text, and its images as images.

``/mcp`` (:func:`mcp_panel`) shows the servers' table with the resources and prompts each
lists; ``/mcp prompts`` lists the prompts as commands; ``/mcp resources`` lists the resources
as ``@server:uri`` references to type in a message.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from robota.cli.mcp_view import status_lines
from robota.cli.slash import Chat, SlashCommand, show
from robota.cli.terminal_text import shown
from robota.cli.turn import run_turn, say
from robota.core.errors import RobotaError
from robota.core.messages import MediaPart, TextPart
from robota.framework.mcp import McpPrompt, McpResource

__all__ = [
    "PROMPT_PREFIX",
    "PromptUsageError",
    "bind_arguments",
    "mcp_panel",
    "prompt_command",
    "prompt_lines",
    "prompt_usage",
    "resource_lines",
    "split_prompt_command",
]

PROMPT_PREFIX = "/mcp__"
"""How the slash command of an MCP prompt starts."""


class PromptUsageError(ValueError):
    """The words given to a prompt's command do not fit its arguments (the message says how)."""


def split_prompt_command(name: str) -> tuple[str, str] | None:
    """``/mcp__docs__review`` → ``("docs", "review")``; None when ``name`` is not of that form
    (server names hold no ``__``, so the first one after the prefix ends the server).

    Example:
        >>> split_prompt_command("/mcp__docs__sum_up__v2"), split_prompt_command("/mcp__docs")
        (('docs', 'sum_up__v2'), None)
    """
    if not name.startswith(PROMPT_PREFIX):
        return None
    server, sep, prompt = name[len(PROMPT_PREFIX) :].partition("__")
    if not sep or not server or not prompt:
        return None
    return server, prompt


def prompt_usage(prompt: McpPrompt) -> str:
    """The usage line: the command, then each argument upper-cased, optional ones in
    brackets (``/mcp__docs__review CODE [LANGUAGE]``)."""
    words = [prompt.command]
    for argument in prompt.arguments:
        name = argument.name.upper()
        words.append(name if argument.required else f"[{name}]")
    return " ".join(words)


def bind_arguments(prompt: McpPrompt, words: Sequence[str]) -> dict[str, str]:
    """The prompt's arguments from the words typed after its command (see the module
    docstring).

    Args:
        prompt: The prompt (its declared arguments, in order).
        words: The words, quotes already removed.

    Returns:
        Argument name → value, for the arguments given, in declaration order.

    Raises:
        PromptUsageError: more words than arguments, or a required argument left out.

    Example:
        >>> from robota.framework.mcp import McpPromptArgument
        >>> review = McpPrompt(server="docs", name="review", arguments=(
        ...     McpPromptArgument(name="code", required=True), McpPromptArgument(name="lang")))
        >>> bind_arguments(review, ["x = 1", "lang=go"])
        {'code': 'x = 1', 'lang': 'go'}
    """
    declared = {a.name.lower(): a.name for a in prompt.arguments}
    given: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key.lower() in declared:
            given[declared[key.lower()]] = value
        else:
            positional.append(word)
    if len(prompt.arguments) == 1 and positional and not given:
        positional = [" ".join(positional)]
    free = [a.name for a in prompt.arguments if a.name not in given]
    if len(positional) > len(free):
        raise PromptUsageError(
            f"{len(positional)} values for {len(free)} argument(s) (quote a value with spaces)"
        )
    given.update(zip(free, positional, strict=False))
    missing = [a.name for a in prompt.arguments if a.required and a.name not in given]
    if missing:
        raise PromptUsageError(f"missing {', '.join(missing)}")
    return {a.name: given[a.name] for a in prompt.arguments if a.name in given}


def _words(args: Sequence[str]) -> list[str]:
    """The words typed after the command, quotes honoured (a lone quote: as split)."""
    try:
        return shlex.split(" ".join(args))
    except ValueError:
        return list(args)


def _summary(parts: Sequence[TextPart | MediaPart]) -> str:
    chars = sum(len(p.text) for p in parts if isinstance(p, TextPart))
    images = sum(1 for p in parts if isinstance(p, MediaPart))
    return f"{chars} characters" + (f", {images} image(s)" if images else "")


def _find(prompts: Sequence[McpPrompt], server: str, typed: str) -> McpPrompt | str:
    """The prompt ``typed`` of ``server`` (server matched without regard to case): the one
    named exactly so, else the only one named so without regard to case; else what to say
    (none, or several differing only in case, listed)."""
    mine = [p for p in prompts if p.server.lower() == server.lower()]
    exact = [p for p in mine if p.name == typed]
    if len(exact) == 1:
        return exact[0]
    folded = [p for p in mine if p.name.lower() == typed.lower()]
    if len(folded) == 1:
        return folded[0]
    if folded:
        names = ", ".join(shown(p.name) for p in folded)
        return (
            f"MCP prompt {typed!r} of {server!r} is ambiguous: the server has "
            f"{names} (names differing only in case); type the name exactly"
        )
    return f"no MCP prompt {typed!r} on server {server!r}; /mcp prompts lists them"


def prompt_command(name: str) -> SlashCommand:
    """The row of ``/mcp__<server>__<prompt>`` (a :data:`~robota.cli.slash.CommandFactory`
    for the ``/mcp__`` family): its handler finds the prompt among the session's, binds the
    words, fills it and runs the turn."""

    async def run(chat: Chat, args: Sequence[str]) -> None:
        target = split_prompt_command(name)
        if target is None:
            say(f"unknown command {name!r}; MCP prompts are /mcp__SERVER__PROMPT (/mcp prompts)")
            return
        server, typed = target
        session = chat.session
        try:
            prompts = await session.mcp_prompts()
        except RobotaError as exc:
            say(shown(str(exc)))  # the text may be the server's
            return
        prompt = _find(prompts, server, typed)
        if isinstance(prompt, str):
            say(prompt)
            return
        try:
            arguments = bind_arguments(prompt, _words(args))
        except PromptUsageError as exc:
            say(f"{exc}; usage: {shown(prompt_usage(prompt))}")
            return
        try:
            parts = await session.get_mcp_prompt(prompt.server, prompt.name, arguments)
        except RobotaError as exc:
            say(shown(str(exc)))  # the text may be the server's
            return
        if not parts:
            say(f"MCP prompt {prompt.name!r} of {prompt.server!r} is empty; nothing sent")
            return
        say(f"MCP prompt {shown(prompt.name)} of {shown(prompt.server)}: {_summary(parts)}")
        await run_turn(
            session,
            parts,
            chat.printer,
            chat.waiting,
            url=chat.ctx.model_url,
            call_timeout=chat.ctx.timeout,
            own_interrupts=False,
        )

    return SlashCommand(
        name=name,
        args="[ARGS...]",
        max_args=None,
        help="an MCP server's prompt, submitted as your message",
        run=run,
    )


def prompt_lines(prompts: Sequence[McpPrompt]) -> list[str]:
    """``/mcp prompts``: one line per prompt, its usage then its description."""
    if not prompts:
        return ["no MCP prompts (none of the connected servers offers any)"]
    usages = [shown(prompt_usage(p)) for p in prompts]
    width = max(len(u) for u in usages)
    lines: list[str] = []
    for usage, prompt in zip(usages, prompts, strict=True):
        about = shown(prompt.description or prompt.title or "")
        lines.append(f"  {usage:<{width}}  {about}".rstrip())
    return lines


def resource_lines(resources: Sequence[McpResource]) -> list[str]:
    """``/mcp resources``: a table of server, URI and name, then how to attach one."""
    if not resources:
        return ["no MCP resources (none of the connected servers offers any)"]
    header = ("SERVER", "URI", "NAME")
    rows = [(shown(r.server), shown(r.uri), shown(r.title or r.name)) for r in resources]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(2)]
    lines = [
        f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]}".rstrip()
        for row in (header, *rows)
    ]
    lines.append("(attach one to a message with @SERVER:URI)")
    return lines


async def mcp_panel(chat: Chat, args: Sequence[str]) -> None:
    """``/mcp [resources|prompts]`` in ``robota chat`` (on stderr): the servers as ``robota mcp
    list`` shows them plus RESOURCES and PROMPTS counts; or the resources (server, URI, name);
    or the prompts as slash commands. Connects the servers first when they are not yet."""
    what = args[0].lower() if args else ""
    if what not in ("", "resources", "prompts"):
        say("usage: /mcp [resources|prompts]")
        return
    session = chat.session
    try:
        resources = await session.mcp_resources() if what != "prompts" else []
        prompts = await session.mcp_prompts() if what != "resources" else []
    except RobotaError as exc:
        say(shown(str(exc)))  # the text may be the server's
        return
    if what == "resources":
        show(resource_lines(resources))
        return
    if what == "prompts":
        show(prompt_lines(prompts))
        return
    counts: dict[str, tuple[int, int]] = {}
    for status in session.mcp_servers:
        counts[status.name] = (
            sum(1 for r in resources if r.server == status.name),
            sum(1 for p in prompts if p.server == status.name),
        )
    show(status_lines(session.mcp_servers, counts))
