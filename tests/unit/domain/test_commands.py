"""bot.domain.commands: /tanka subcommands and the in-thread cancel and rebase words."""

from __future__ import annotations

import pytest

from bot.domain.commands import (
    Envs,
    Help,
    NewEnv,
    Status,
    help_text,
    is_cancel,
    is_rebase,
    new_env_prompt,
    parse_slash,
)


@pytest.mark.parametrize("text", ["help", "HELP", "  help  ", "help me please"])
def test_help(text: str) -> None:
    assert parse_slash(text) == Help()


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_empty_text_shows_help_without_a_problem(text: str) -> None:
    assert parse_slash(text) == Help()


def test_envs_and_status() -> None:
    assert parse_slash("envs") == Envs()
    assert parse_slash("Status") == Status()


def test_new_env_with_instructions() -> None:
    assert parse_slash("new-env staging like dev but 3 replicas") == NewEnv(
        "staging", "like dev but 3 replicas"
    )


def test_new_env_without_instructions() -> None:
    assert parse_slash("new-env staging") == NewEnv("staging", "")


@pytest.mark.parametrize("name", ["eu-west/staging", "prod.v2", "a_b", "0", "a/b/c/d"])
def test_new_env_accepts_nested_simple_names(name: str) -> None:
    assert parse_slash(f"new-env {name}") == NewEnv(name, "")


def test_new_env_trailing_slash_is_tolerated() -> None:
    assert parse_slash("new-env staging/") == NewEnv("staging", "")


def test_new_env_without_a_name() -> None:
    action = parse_slash("new-env")
    assert isinstance(action, Help)
    assert "needs a name" in action.problem


@pytest.mark.parametrize(
    "name",
    [
        "../x",
        "a/../b",
        "..",
        "A",
        "Staging",
        "x" * 200,
        "a//b",
        "a/b/c/d/e",
        "-dash",
        ".hidden",
        "a;rm",
        "$(id)",
        "a\\b",
    ],
)
def test_hostile_environment_names_are_refused(name: str) -> None:
    action = parse_slash(f"new-env {name} do it")
    assert isinstance(action, Help), action
    assert "not a usable environment name" in action.problem


def test_refusal_quotes_at_most_64_characters_of_the_name() -> None:
    action = parse_slash("new-env " + "X" * 500)
    assert isinstance(action, Help)
    assert "X" * 64 in action.problem
    assert "X" * 65 not in action.problem


@pytest.mark.parametrize("text", ["deploy prod", "apply", "new_env staging", "newenv x"])
def test_unknown_subcommands_show_help_with_the_problem(text: str) -> None:
    action = parse_slash(text)
    assert isinstance(action, Help)
    assert action.problem == f"unknown subcommand `{text.split(maxsplit=1)[0]}`"


@pytest.mark.parametrize(
    "text", ["cancel", "stop", "Cancel", "STOP", "  stop  ", "cancel.", "stop!", "cancel!!"]
)
def test_cancel_words(text: str) -> None:
    assert is_cancel(text)


@pytest.mark.parametrize(
    "text", ["", "cancel the deployment", "don't stop", "stop?", "cancelled", "halt", "stop it"]
)
def test_not_cancel_words(text: str) -> None:
    assert not is_cancel(text)


@pytest.mark.parametrize("text", ["rebase", "Rebase", " REBASE ", "rebase.", "rebase!"])
def test_rebase_word(text: str) -> None:
    assert is_rebase(text)
    assert not is_cancel(text)


@pytest.mark.parametrize(
    "text", ["", "rebase onto prod", "please rebase", "rebase?", "rebased", "re-base"]
)
def test_not_the_rebase_word(text: str) -> None:
    assert not is_rebase(text)


def test_new_env_prompt_names_the_environment_and_the_instructions() -> None:
    prompt = new_env_prompt(NewEnv("eu/staging", "three replicas"))
    assert "`eu/staging`" in prompt
    assert "three replicas" in prompt
    assert "Additional instructions" not in new_env_prompt(NewEnv("dev", ""))


def test_help_text_names_the_configured_emoji_and_the_problem() -> None:
    text = help_text("approve", "no_entry", "unknown subcommand `x`")
    assert text.startswith("unknown subcommand `x`\n\n")
    assert ":approve:" in text
    assert ":no_entry:" in text
    assert "{" not in text
    assert not help_text("a", "b").startswith("\n")
