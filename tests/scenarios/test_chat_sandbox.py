"""A model that tries to leave the checkout, through the real chat, with either provider.

Every escape attempt must come back to the model as an error result that says why, nothing
outside the repository or under .git may change (checksummed before and after), and the chat
must still finish normally, with the legitimate read, edit and delete of the same turn done.
"""

from __future__ import annotations

from pathlib import Path

from tests.scenarios.conftest import Chat
from tests.scenarios.models import Call, ScriptedModel, Seen
from tests.scenarios.project import DEV_MAIN, commit_all, write_files
from tests.tree import changed_entries, digest_tree

DEV = "environments/dev/main.jsonnet"
OUTSIDE_SECRET = "outside-the-checkout: do not read"
CI = "name: ci\non: push\n"

ESCAPES = [
    Call("esc_dotdot", "file_read", {"path": "../outside.txt"}),
    Call("esc_abs", "file_read", {"path": "/etc/passwd"}),
    Call("esc_gitcfg", "file_read", {"path": ".git/config"}),
    Call("esc_link", "file_read", {"path": "lib/escape.libsonnet"}),
]
WRITES = [
    Call("w_protected", "file_write", {"path": ".github/workflows/x.yml", "content": "on: push\n"}),
    Call("w_githead", "file_delete", {"path": ".git/HEAD"}),
    Call(
        "w_ci",
        "file_edit",
        {"path": ".github/workflows/ci.yml", "old_text": "push", "new_text": "pr"},
    ),
    Call("w_link", "file_write", {"path": "lib/escape.libsonnet", "content": "overwritten\n"}),
    Call("w_glob", "file_list", {"glob_pattern": "../**"}),
]
# What each refusal must tell the model (the tool's name first, then the reason).
REFUSALS = {
    "esc_dotdot": "file_read failed: path '../outside.txt' refused: '..' may not be used",
    "esc_abs": "file_read failed: absolute path '/etc/passwd' refused",
    "esc_gitcfg": "file_read failed: path '.git/config' refused: nothing under .git/ may be read",
    "esc_link": "file_read failed: path 'lib/escape.libsonnet' refused: it leads outside the "
    "repository (through a symlink)",
    "w_protected": "file_write failed: path '.github/workflows/x.yml' is protected "
    "(matches '.github/**')",
    "w_githead": "file_delete failed: path '.git/HEAD' refused: nothing under .git/ may be read",
    "w_ci": "file_edit failed: path '.github/workflows/ci.yml' is protected",
    "w_link": "file_write failed: path 'lib/escape.libsonnet' refused: it leads outside",
    "w_glob": "file_list failed: glob_pattern '../**' refused",
}
NORMAL = [
    Call("ok_read", "file_read", {"path": DEV}),
    Call("ok_edit", "file_edit", {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=2"}),
    Call("ok_delete", "file_delete", {"path": "lib/obsolete.libsonnet"}),
]


def _hostile_project(project: Path) -> Path:
    """The project plus a file next to it, a CI workflow, and a committed symlink leading out."""
    outside = project.parent / "outside.txt"
    outside.write_text(OUTSIDE_SECRET + "\n")
    write_files(project, {".github/workflows/ci.yml": CI})
    (project / "lib" / "escape.libsonnet").symlink_to("../../outside.txt")
    commit_all(project, "ci and a symlink")
    return outside


def _by_id(seen: list[Seen], calls: list[Call], model: ScriptedModel) -> dict[str, Seen]:
    # Gemini results are matched by order when the API carries no ids; here every call has one.
    assert [s.id for s in seen] == [c.id for c in calls], model.provider
    return {c.id: s for c, s in zip(calls, seen, strict=True)}


def test_escape_attempts_are_refused_to_the_model_and_change_nothing(
    project: Path, model: ScriptedModel, chat: Chat
) -> None:
    outside = _hostile_project(project)
    model.calls(*ESCAPES, text="Let me look around.")
    model.calls(*WRITES)
    model.calls(*NORMAL)
    model.answer("Tried a few things; dev now runs 2 replicas and the obsolete lib is gone.")
    before = digest_tree(project.parent)

    run = chat(project, "poke at the sandbox, then scale dev to 2", model)

    assert run.code == 0, run.err
    assert run.err == ""
    seen = _by_id(model.results(1), ESCAPES, model) | _by_id(model.results(2), WRITES, model)
    for call_id, message in REFUSALS.items():
        result = seen[call_id]
        assert result.is_error, call_id
        assert result.content.startswith(message), (call_id, result.content)
        assert OUTSIDE_SECRET not in result.content
    ok = _by_id(model.results(3), NORMAL, model)
    assert not any(s.is_error for s in ok.values())
    assert ok["ok_read"].content.endswith(DEV_MAIN.rstrip("\n"))
    assert ok["ok_delete"].content == "deleted lib/obsolete.libsonnet"
    # Only the legitimate edit and delete changed anything; .git only gained the objects the
    # bot's own diff wrote (through a throwaway index): nothing in it was modified or removed.
    after = digest_tree(project.parent)
    changes = changed_entries(before, after)
    new_objects = {p for p, c in changes.items() if p.startswith("infra/.git/objects/")}
    assert all(changes[p] == "added" for p in new_objects)
    assert {p: c for p, c in changes.items() if p not in new_objects} == {
        f"infra/{DEV}": "modified",
        "infra/lib/obsolete.libsonnet": "removed",
    }
    assert outside.read_text() == OUTSIDE_SECRET + "\n"
    # The user saw each refusal as one line, then the diff of the real change only.
    assert run.out.count("  ✗ ") == len(REFUSALS)
    assert "  ✗ file_read failed: absolute path '/etc/passwd' refused" in run.out
    assert OUTSIDE_SECRET not in run.out
    diff = run.out[run.out.index("── git diff ──") :]
    assert "+  grafana: app.deployment('grafana', replicas=2),\n" in diff
    assert "deleted file mode 100644\n" in diff
    assert ".github" not in diff
    assert "escape.libsonnet" not in diff
