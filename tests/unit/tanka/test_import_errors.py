"""Import errors reach the user intact.

go-jsonnet's python glue passes the import callback's message to Go without a terminating NUL,
so the text that comes back can carry stray bytes (or fail to decode at all). The worker puts
the importer's own message back; these cases failed most of the time before it did.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.tanka.evaluation.worker import EvalRequest, evaluate

# Every test here runs on go-jsonnet and on jrsonnet (conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")


@pytest.mark.parametrize("length", range(1, 40))
def test_missing_import_message_is_exact(tmp_path: Path, length: int) -> None:
    name = "m" * length + ".libsonnet"
    main = tmp_path / "main.jsonnet"
    main.write_text(f"import '{name}'\n")
    reply = evaluate(EvalRequest(str(main), None, str(tmp_path), ()))
    assert reply.error is not None
    first = reply.error.splitlines()[0]
    assert first == (
        f'RUNTIME ERROR: couldn\'t open import "{name}": '
        "no match locally or in the Jsonnet library paths"
    )


def test_refused_import_message_is_exact(tmp_path: Path) -> None:
    main = tmp_path / "main.jsonnet"
    main.write_text("importstr '/etc/passwd'\n")
    reply = evaluate(EvalRequest(str(main), None, str(tmp_path), ()))
    assert reply.error is not None
    assert reply.error.splitlines()[0] == (
        'RUNTIME ERROR: import "/etc/passwd" refused: absolute import paths are not allowed; '
        "import files inside the project by a relative path"
    )
    assert "main.jsonnet:1:1" in reply.error
