"""An independent reader of recorded Gemini traffic for the replay tests (not the adapter's code):
where the recordings are, which interactions are Google model calls, and a neutral request rebuilt
from a recorded request body. What a user should see is computed in ``_google_expected``.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from robota.core.capabilities import StructuredOutputTransport
from robota.core.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import ModelRequest, OutputSchema, ToolDefinition
from robota.core.testing.cassette import Interaction, load_cassette

REPO_ROOT = Path(__file__).resolve().parents[3]


def cassette_root() -> Path:
    """``ROBOTA_CASSETTE_DIR`` or ``<repo>/../shared/cassettes/pydantic-ai``."""
    env = os.environ.get("ROBOTA_CASSETTE_DIR")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "cassettes" / "pydantic-ai"


def is_google_host(host: str) -> bool:
    return host == "generativelanguage.googleapis.com" or host.endswith("aiplatform.googleapis.com")


MODEL_CALLS = frozenset({"generateContent", "streamGenerateContent"})
COVERED_METHODS = MODEL_CALLS | {"countTokens"}


def google_interactions() -> list[tuple[Path, int, Interaction]]:
    """Every recorded Google interaction under :func:`cassette_root`, in file order."""
    return list(_interactions_under(cassette_root()))


@functools.cache
def _interactions_under(root: Path) -> tuple[tuple[Path, int, Interaction], ...]:
    # Parsing the YAML recordings is the slow part of the suite; each folder is read once.
    found: list[tuple[Path, int, Interaction]] = []
    for file in sorted(root.glob("*/*.yaml")):
        cassette = load_cassette(file)
        for index, interaction in enumerate(cassette.interactions):
            if is_google_host(interaction.host):
                found.append((file, index, interaction))
    return tuple(found)


def vertex_target(uri: str) -> tuple[str, str] | None:
    """(project, location) from a Vertex URL, or None for the Gemini API."""
    parts = urlsplit(uri).path.split("/")
    if "projects" not in parts or "locations" not in parts:
        return None
    return parts[parts.index("projects") + 1], parts[parts.index("locations") + 1]


def model_of(uri: str) -> str:
    return urlsplit(uri).path.rsplit("/", 1)[-1].split(":", 1)[0]


def method_of(uri: str) -> str:
    return urlsplit(uri).path.rsplit(":", 1)[-1]


def _lower_types(schema: Any) -> Any:
    """Recorded Gemini ``Schema`` objects spell types in upper case; JSON Schema wants lower."""
    if isinstance(schema, dict):
        return {
            k: (v.lower() if k == "type" and isinstance(v, str) else _lower_types(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_lower_types(v) for v in schema]
    return schema


def _user_parts(parts: list[dict[str, Any]]) -> list[TextPart | MediaPart]:
    out: list[TextPart | MediaPart] = []
    for part in parts:
        if "text" in part:
            out.append(TextPart(text=part["text"]))
        elif "fileData" in part or "file_data" in part:
            data = part.get("fileData") or part["file_data"]
            out.append(
                MediaPart(
                    media_kind="binary",
                    media_type=data.get("mimeType") or data.get("mime_type") or "",
                    url=data.get("fileUri") or data["file_uri"],
                )
            )
    return out


def request_of(interaction: Interaction) -> ModelRequest:
    """A neutral request rebuilt from the recorded request body (enough of it to replay)."""
    body: dict[str, Any] = interaction.request_body or {}
    messages: list[Message] = []
    system = body.get("systemInstruction")
    if system:
        messages.append(
            SystemMessage(content="".join(p.get("text", "") for p in system.get("parts", [])))
        )
    for n, content in enumerate(body.get("contents", [])):
        parts = content.get("parts", [])
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        if responses:
            messages.append(
                ToolResultMessage(
                    results=tuple(
                        ToolResultPart(
                            call_id=r.get("id") or f"gemini-call-{n}-{i}",
                            name=r["name"],
                            content=(TextPart(text=json.dumps(r.get("response"))),),
                        )
                        for i, r in enumerate(responses)
                    )
                )
            )
        elif content.get("role") == "model":
            model_parts: list[TextPart | ToolCallPart] = []
            for i, p in enumerate(parts):
                if "functionCall" in p:
                    call = p["functionCall"]
                    model_parts.append(
                        ToolCallPart(
                            id=call.get("id") or f"gemini-call-{n}-{i}",
                            name=call["name"],
                            arguments=call.get("args") or {},
                        )
                    )
                elif "text" in p and not p.get("thought"):
                    model_parts.append(TextPart(text=p["text"]))
            messages.append(AssistantMessage(parts=tuple(model_parts)))
        else:
            user = _user_parts(parts)
            if user:
                messages.append(UserMessage(parts=tuple(user)))
    if not messages or all(isinstance(m, SystemMessage) for m in messages):
        # countTokens bodies are recorded as raw strings the loader does not parse; the count
        # does not depend on the prompt when replayed.
        messages.append(UserMessage.of("(recorded prompt)"))
    tools: list[ToolDefinition] = []
    raw_tools = body.get("tools", [])
    for tool in raw_tools if isinstance(raw_tools, list) else [raw_tools]:
        decls = tool.get("functionDeclarations") or tool.get("function_declarations") or []
        for decl in decls:
            params = (
                decl.get("parameters_json_schema")
                or decl.get("parametersJsonSchema")
                or decl.get("parameters")
            )
            tools.append(
                ToolDefinition(
                    name=decl["name"],
                    description=decl.get("description", ""),
                    parameters=_lower_types(params) or {"type": "object", "properties": {}},
                )
            )
    output = None
    schema = (body.get("generationConfig") or {}).get("responseJsonSchema")
    if schema:
        output = OutputSchema(
            name="output", schema=schema, transport=StructuredOutputTransport.NATIVE
        )
    return ModelRequest(
        model=model_of(interaction.uri), messages=tuple(messages), tools=tuple(tools), output=output
    )
