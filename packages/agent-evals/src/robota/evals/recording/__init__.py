"""Record provider traffic of a live run into cassette files the replay helpers read
(``robota.core.testing.cassette.load_cassette``, each provider's ``replay_provider``), with
credentials and volatile fields filtered and conventional secret headers rejected (issue #19,
seed 002 "Cassettes"). Recording needs the ``record`` extra:
``pip install "robota-agent-evals[record]"`` (vcrpy)."""

from robota.evals.recording._filters import (
    AUTH_SCHEMES,
    REDACTED,
    SAFE_REQUEST_HEADERS,
    SECRET_BODY_FIELD,
    SECRET_NAME,
    SECRET_QUERY_PARAMETERS,
    SENSITIVE_HEADERS,
    CassetteFilters,
)
from robota.evals.recording._record import CassetteRecording, RecordMode, record_cassette

__all__ = [
    "AUTH_SCHEMES",
    "REDACTED",
    "SAFE_REQUEST_HEADERS",
    "SECRET_BODY_FIELD",
    "SECRET_NAME",
    "SECRET_QUERY_PARAMETERS",
    "SENSITIVE_HEADERS",
    "CassetteFilters",
    "CassetteRecording",
    "RecordMode",
    "record_cassette",
]
