"""Harness for ``test_trust_boundaries.py`` (issue #13): a loopback vendor, a user and a hostile
project on disk, and the real ``robota`` command run between them."""
