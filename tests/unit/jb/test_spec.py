"""jsonnetfile formats against jb's fixtures (spec_test.go, jsonnetfile_test.go)."""

from __future__ import annotations

import pytest

from tools.jb import spec
from tools.jb.deps import GitSource
from tools.jb.errors import JbError

# jb's spec_test.go fixture, as jb writes it (key order source, version, sum, single, name).
V1 = b"""{
  "version": 1,
  "dependencies": [
    {
      "source": {
        "git": {
          "remote": "https://github.com/grafana/jsonnet-libs.git",
          "subdir": "grafana-builder"
        }
      },
      "version": "54865853ebc1f901964e25a2e7a0e4d2cb6b9648",
      "sum": "ELsYwK+kGdzX1mee2Yy+/b2mdO4Y503BOCDkFzwmGbE="
    },
    {
      "source": {
        "git": {
          "remote": "https://github.com/prometheus/prometheus.git",
          "subdir": "documentation/prometheus-mixin"
        }
      },
      "version": "7c039a6b3b4b2a9d7c613ac8bd3fc16e8ca79684",
      "sum": "bVGOsq3hLOw2irNPAS91a5dZJqQlBUNWy3pVwM4+kIY=",
      "name": "prometheus"
    }
  ],
  "legacyImports": false
}
"""

V0 = b"""{
  "dependencies": [
    {"name": "prometheus-mixin",
     "source": {"git": {"remote": "https://github.com/prometheus/prometheus",
                        "subdir": "documentation/prometheus-mixin"}},
     "version": "7c039a6b3b4b2a9d7c613ac8bd3fc16e8ca79684"},
    {"name": "grafana-builder",
     "source": {"git": {"remote": "https://github.com/grafana/jsonnet-libs",
                        "subdir": "grafana-builder"}},
     "version": "54865853ebc1f901964e25a2e7a0e4d2cb6b9648",
     "sum": "ELsYwK+kGdzX1mee2Yy+/b2mdO4Y503BOCDkFzwmGbE="}
  ]
}"""


def test_remarshal_is_byte_exact() -> None:
    parsed = spec.parse(V1)
    assert spec.dump(parsed) == V1
    mixin = parsed.dependencies["github.com/prometheus/prometheus/documentation/prometheus-mixin"]
    assert mixin.legacy_name == "prometheus"
    assert mixin.source == GitSource(
        "https://", "github.com", "prometheus", "prometheus", "/documentation/prometheus-mixin"
    )


def test_init_content_is_jbs() -> None:
    assert spec.init_content() == (
        b'{\n  "version": 1,\n  "dependencies": [],\n  "legacyImports": true\n}\n'
    )


def test_v0_is_upgraded_sorted_with_canonical_remotes() -> None:
    parsed = spec.parse(V0)
    assert parsed.legacy_imports is True
    names = [d.name for d in parsed.sorted_dependencies()]
    assert names == [
        "github.com/grafana/jsonnet-libs/grafana-builder",
        "github.com/prometheus/prometheus/documentation/prometheus-mixin",
    ]
    out = spec.dump(parsed).decode()
    assert '"remote": "https://github.com/grafana/jsonnet-libs.git"' in out
    assert '"name": "grafana-builder"' in out  # v0 names become legacy-name overrides
    assert out.index("grafana-builder") < out.index("prometheus-mixin")


def test_empty_and_versionless_files_are_empty_specs() -> None:
    assert spec.parse(b"") == spec.JsonnetFile()
    assert spec.parse(b"{}") == spec.JsonnetFile()


def test_legacy_imports_defaults_to_true_and_lock_is_false() -> None:
    assert spec.parse(b'{"version": 1}').legacy_imports is True
    assert spec.lockfile_of([]).legacy_imports is False


def test_unknown_version_says_what_to_do() -> None:
    with pytest.raises(JbError, match=r"jsonnetfile version unknown \(100\).*set `version` to 1"):
        spec.parse(b'{"version": 100}')


def test_malformed_json_reports_position() -> None:
    with pytest.raises(JbError, match=r"jsonnetfile.json is not valid JSON: .* line 3 column 3"):
        spec.parse(b'{\n  "version": 1\n  "dependencies": []\n}')


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        (b"[]", "must hold a JSON object"),
        (b'{"version": 1, "dependencies": {}}', "must be an array"),
        (b'{"version": 1, "dependencies": [{"version": "x"}]}', "lacks `source`"),
        (b'{"version": 1, "dependencies": [{"source": {}}]}', "no `source.git`"),
        (b'{"version": 1, "dependencies": [{"source": {"git": {"remote": "nope"}}}]}', "git url"),
        (b'{"version": 1, "legacyImports": "yes"}', "true or false"),
    ],
)
def test_malformed_entries_are_named(doc: bytes, problem: str) -> None:
    with pytest.raises(JbError, match=problem):
        spec.parse(doc)


def test_hostile_legacy_name_is_refused() -> None:
    doc = (
        b'{"version": 1, "dependencies": [{"source": {"git": {"remote": '
        b'"https://github.com/a/b.git", "subdir": ""}}, "version": "v1", "name": "../../x"}]}'
    )
    with pytest.raises(JbError, match="unusable legacy name"):
        spec.parse(doc)


def test_go_string_escaping() -> None:
    assert (
        spec.go_quote('a<b>&"\\\n\t\x01\u2028é')
        == '"a\\u003cb\\u003e\\u0026\\"\\\\\\n\\t\\u0001\\u2028é"'
    )
