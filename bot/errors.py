"""Errors that end a command with a one-line message instead of a traceback."""

from __future__ import annotations


class UserError(Exception):
    """An expected failure: bad input, missing setting, unusable repository.

    The message names what is wrong and how to fix it; the CLI prints it as one line.
    """

    exit_code = 1
