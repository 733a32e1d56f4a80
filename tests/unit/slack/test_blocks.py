"""bot.slack.blocks: proposals and answers stay within Slack's limits (reference/slack.md 4.2)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.domain.proposal import Proposal
from bot.slack.blocks import (
    SECTION_LIMIT,
    SUMMARY_ENV_LINES,
    Rendered,
    clip,
    fit,
    plain,
    progress,
    proposal,
    section,
)
from tools.tanka.diff.resources import Change, EnvDiff, ResourceDiff, ResourceKey

MAX_BLOCKS = 50
BLOCKS_TEXT = 12_000
TEXT_LIMIT = 40_000


def texts(value: Any) -> Iterator[str]:
    """Every `text` string inside blocks, however deeply nested."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "text" and isinstance(item, str):
                yield item
            else:
                yield from texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from texts(item)


def assert_within_limits(rendered: Rendered, *, fences: bool = True) -> None:
    assert 0 < len(rendered.blocks) <= MAX_BLOCKS
    for block in rendered.blocks:
        if block["type"] == "section":
            assert 0 < len(block["text"]["text"]) <= SECTION_LIMIT
    total = sum(len(t) for t in texts(rendered.blocks))
    assert total <= BLOCKS_TEXT, total
    assert 0 < len(rendered.text) <= TEXT_LIMIT
    for text in texts(rendered.blocks) if fences else ():
        if text.startswith(("*Git diff*", "*Rendered-manifest diff*")):
            # A diff's code fence cut in half renders the rest of the message as code.
            assert text.count("```") % 2 == 0, text[-200:]


def env(name: str, *changes: Change) -> EnvDiff:
    resources = [
        ResourceDiff(
            ResourceKey("apps/v1", "Deployment", "default", f"app{i}"),
            change,
            f"diff -u -N LIVE-app{i} MERGED-app{i}\n-replicas: 1\n+replicas: 5\n",
        )
        for i, change in enumerate(changes)
    ]
    return EnvDiff(name, resources)


GIT_DIFF = (
    "diff --git a/environments/prod/main.jsonnet b/environments/prod/main.jsonnet\n"
    "--- a/environments/prod/main.jsonnet\n+++ b/environments/prod/main.jsonnet\n"
    "@@ -1 +1 @@\n-  replicas: 1,\n+  replicas: 5,\n"
)


def show(**change: Any) -> Rendered:
    """The message of a proposal raising prod's replicas, with `change` replacing some parts."""
    values: dict[str, Any] = {
        "number": 1,
        "files": ["environments/prod/main.jsonnet"],
        "envs": [env("environments/prod", Change.CHANGED), env("environments/dev")],
        "git_diff": GIT_DIFF,
        "rendered_diff": (
            "environments/prod: 0 added, 1 changed, 0 removed\n-replicas: 1\n+replicas: 5\n"
        ),
        "approve_emoji": "white_check_mark",
    }
    values.update(change)
    return render(**values)


def render(
    *,
    number: int,
    files: list[str],
    envs: list[EnvDiff],
    git_diff: str,
    rendered_diff: str,
    approve_emoji: str,
    review_note: str = "",
    checks: str = "",
    review: str = "",
    approvals: str = "",
) -> Rendered:
    """blocks.proposal of a proposal with these parts."""
    shown = Proposal(base_commit="a" * 40, tree="b" * 40, diff_hash="c" * 64, files=tuple(files),
                     diff=git_diff, note=review_note, checks=checks, review=review)  # fmt: skip
    return proposal(shown, number=number, envs=envs, rendered=rendered_diff, emoji=approve_emoji,
                    approvals=approvals)  # fmt: skip


def test_short_proposal_inlines_both_diffs_in_fences() -> None:
    rendered = show()
    assert rendered.snippets == ()
    summary, git, rendered_diff, approve = (b["text"]["text"] for b in rendered.blocks)
    assert summary.startswith("*Proposal 1*: 1 file(s) changed, 1 environment(s) affected")
    assert "`environments/prod`: 0 added, 1 changed, 0 removed" in summary
    assert "environments/dev" not in summary  # unchanged environments are not listed
    assert git == "*Git diff*\n```\n" + GIT_DIFF.rstrip("\n") + "\n```"
    assert rendered_diff.startswith("*Rendered-manifest diff*\n```\n")
    assert approve == "React with :white_check_mark: to open a pull request"
    assert rendered.text.endswith("React with :white_check_mark: to open a pull request")
    assert_within_limits(rendered)


def test_approve_line_names_the_configured_emoji() -> None:
    rendered = show(approve_emoji="shipit", number=3)
    assert rendered.blocks[-1]["text"]["text"] == "React with :shipit: to open a pull request"
    assert rendered.blocks[0]["text"]["text"].startswith("*Proposal 3*")


def test_long_diffs_go_to_snippets_and_the_block_points_at_the_file() -> None:
    long_git = "".join(f"+line {i}\n" for i in range(2000))
    long_rendered = "".join(f"-old {i}\n+new {i}\n" for i in range(1000))
    rendered = show(git_diff=long_git, rendered_diff=long_rendered, number=2)
    assert [s.filename for s in rendered.snippets] == ["changes.diff", "rendered.diff"]
    assert rendered.snippets[0].content == long_git  # the whole diff, not a clipped one
    assert rendered.snippets[1].content == long_rendered
    assert rendered.snippets[0].title == "Git diff (proposal 2)"
    git_block = rendered.blocks[1]["text"]["text"]
    assert git_block == "*Git diff*: 2000 lines, in `changes.diff` above"
    assert "`rendered.diff`" in rendered.blocks[2]["text"]["text"]
    assert "```" not in "".join(texts(rendered.blocks))
    assert_within_limits(rendered)


def test_short_git_diff_inline_long_rendered_diff_in_a_snippet() -> None:
    rendered = show(rendered_diff="x\n" * 5000)
    assert [s.filename for s in rendered.snippets] == ["rendered.diff"]
    assert "```" in rendered.blocks[1]["text"]["text"]
    assert_within_limits(rendered)


def test_no_rendered_change_says_so_and_posts_no_rendered_diff() -> None:
    rendered = show(envs=[env("environments/dev")], rendered_diff="No differences.\n")
    assert "no Tanka environment renders differently" in rendered.blocks[0]["text"]["text"]
    assert all("Rendered-manifest" not in t for t in texts(rendered.blocks))
    assert len(rendered.blocks) == 3


def test_environment_that_cannot_render_is_listed_with_its_error() -> None:
    broken = EnvDiff("environments/broken", error="RUNTIME ERROR: " + "x" * 1000)
    rendered = show(envs=[broken])
    summary = rendered.blocks[0]["text"]["text"]
    assert "`environments/broken`: cannot render: RUNTIME ERROR" in summary
    assert len(summary) < 600  # the error is clipped


def test_environment_added_is_marked() -> None:
    added = EnvDiff(
        "environments/new",
        env("x", Change.ADDED, Change.ADDED).resources,
        env_change=Change.ADDED,
    )
    summary = show(envs=[added]).blocks[0]["text"]["text"]
    assert "`environments/new`: 2 added, 0 changed, 0 removed (environment added)" in summary


def distinct(name: str) -> EnvDiff:
    """An environment whose diff no other environment shares."""
    key = ResourceKey("apps/v1", "Deployment", name, "app")
    return EnvDiff(name, [ResourceDiff(key, Change.CHANGED, f"-a: 1\n+a: {name}\n")])


def test_many_environments_cap_the_summary() -> None:
    envs = [distinct(f"environments/region-{i:03d}") for i in range(120)]
    rendered = show(envs=envs, rendered_diff="y\n" * 4000)
    summary = rendered.blocks[0]["text"]["text"]
    assert "120 environment(s) affected" in summary
    assert summary.count("\n• `environments/region-") == SUMMARY_ENV_LINES
    assert "… and 100 more" in summary
    assert "region-020" not in summary
    assert_within_limits(rendered)


def test_backticks_inside_a_diff_do_not_close_the_fence() -> None:
    diff = "+```yaml\n+key: value\n+```\n"
    block = show(git_diff=diff).blocks[1]["text"]["text"]
    inner = block.removeprefix("*Git diff*\n```\n").removesuffix("\n```")
    assert "```" not in inner
    assert inner.replace("\u200d", "") == diff.rstrip("\n")


def test_slack_syntax_inside_a_diff_is_shown_as_typed() -> None:
    # A repository's file is untrusted: `<!channel>` in it would ping from the proposal, and
    # `<https://a|b>` would show only b, hiding what the line really says.
    diff = "+note: <!channel> & <https://evil.example/x|good.example/x>\n"
    block = show(git_diff=diff).blocks[1]["text"]["text"]
    assert "<!channel>" not in block
    assert "&lt;!channel&gt; &amp; &lt;https://evil.example/x|good.example/x&gt;" in block


def test_backtick_heavy_diff_near_the_inline_limit_keeps_its_fence_closed() -> None:
    # A README with many code fences: escaping makes the fenced text longer than the raw diff.
    diff = "```\n" * 620  # 2,480 characters raw, over 3,000 once escaped
    rendered = show(git_diff=diff)
    assert_within_limits(rendered)
    git_texts = [t for t in texts(rendered.blocks) if t.startswith("*Git diff*")]
    assert len(git_texts) == 1
    if rendered.snippets:
        assert rendered.snippets[0].content == diff
    else:
        assert git_texts[0].endswith("\n```")


def test_four_backticks_do_not_close_the_fence() -> None:
    block = show(git_diff="+````\n").blocks[1]["text"]["text"]
    assert block.count("```") == 2


def test_review_note_is_in_the_summary() -> None:
    rendered = show(review_note="_rendered diff unavailable: base does not render_")
    assert "_rendered diff unavailable" in rendered.blocks[0]["text"]["text"]


def test_plain_short_answer_is_one_section() -> None:
    rendered = plain("  The prod replicas are 3.  ")
    assert rendered.text == "The prod replicas are 3."
    assert rendered.blocks == [
        {"type": "section", "text": {"type": "mrkdwn", "text": "The prod replicas are 3."}}
    ]


def test_plain_empty_answer() -> None:
    assert plain("   ").text == "(no answer)"


def test_plain_long_answer_splits_at_line_boundaries_without_losing_text() -> None:
    lines = [f"line {i:05d} " + "z" * 60 for i in range(150)]  # ~10,500 characters
    answer = "\n".join(lines)
    rendered = plain(answer)
    assert len(rendered.blocks) > 1
    parts = [b["text"]["text"] for b in rendered.blocks]
    assert all(not p.startswith("\n") for p in parts)
    assert "\n".join(parts) == answer  # cut only at newlines, and nothing lost
    assert_within_limits(rendered)


def test_plain_very_long_answer_is_cut_within_the_message_limits() -> None:
    rendered = plain("word " * 20_000)  # 100,000 characters, no newlines
    assert_within_limits(rendered, fences=False)
    assert rendered.blocks[-1]["text"]["text"].endswith("… (answer cut)")


def test_clip_prefers_a_line_boundary_and_never_exceeds_the_limit() -> None:
    text = "a" * 60 + "\n" + "b" * 60
    assert clip(text, 100, "!") == "a" * 60 + "!"
    assert clip("x" * 10, 3, "long note") == "lon"
    assert clip("short", 10) == "short"


# invariants for any input

_diff_text = st.text(
    alphabet=st.sampled_from(list("ab`+- \n\u00e9\u200d{}*_~<>&")), max_size=6000
) | st.builds(lambda n, s: s * n, st.integers(0, 3000), st.sampled_from(["```\n", "+a\n", "`"]))
_env = st.builds(
    EnvDiff,
    st.text(min_size=1, max_size=300),
    st.lists(
        st.builds(
            ResourceDiff,
            st.just(ResourceKey("v1", "ConfigMap", "ns", "cm")),
            st.sampled_from(list(Change)),
            st.just("diff\n"),
        ),
        max_size=3,
    ),
    st.none() | st.text(max_size=2000),
    st.none() | st.sampled_from(list(Change)),
)


@settings(max_examples=150, deadline=None)
@given(
    view=st.fixed_dictionaries(
        {
            "number": st.integers(1, 10_000),
            "files": st.lists(st.text(max_size=200), max_size=300),
            "envs": st.lists(_env, max_size=60),
            "git_diff": _diff_text,
            "rendered_diff": _diff_text,
            "approve_emoji": st.sampled_from(["white_check_mark", "approve", "+1"]),
            "review_note": st.text(max_size=5000),
        }
    )
)
def test_proposal_always_within_limits(view: dict[str, Any]) -> None:
    rendered = render(**view)
    envs, git_diff, rendered_diff, emoji = (
        view["envs"],
        view["git_diff"],
        view["rendered_diff"],
        view["approve_emoji"],
    )
    assert_within_limits(rendered)
    assert rendered.blocks[-1]["text"]["text"] == f"React with :{emoji}: to open a pull request"
    # Each non-blank diff is either inline or uploaded whole.
    shown = [e for e in envs if e.has_changes or e.error is not None]
    for body, title, filename in (
        (git_diff, "Git diff", "changes.diff"),
        (rendered_diff if shown else "", "Rendered-manifest diff", "rendered.diff"),
    ):
        snippet = [s for s in rendered.snippets if s.filename == filename]
        block = [t for t in texts(rendered.blocks) if t.startswith(f"*{title}*")]
        if not body.strip():
            assert not snippet
            assert not block
        elif snippet:
            assert snippet[0].content == body
        else:
            inner = block[0].removeprefix(f"*{title}*\n```\n").removesuffix("\n```")
            assert "```" not in inner
            unescaped = inner.replace("\u200d", "").rstrip("\n")
            as_shown = unescaped.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
            assert as_shown == body.replace("\u200d", "").rstrip("\n")  # as Slack shows it


@settings(max_examples=150, deadline=None)
@given(
    answer=st.text(max_size=60_000)
    | st.builds(lambda n, s: s * n, st.integers(0, 20_000), st.sampled_from(["a", "ab\n", "\n\n"]))
)
def test_plain_always_within_limits(answer: str) -> None:
    # An answer is the model's markdown: its own fences are its own business.
    assert_within_limits(plain(answer), fences=False)


def test_environments_with_identical_diffs_are_one_group() -> None:
    envs = [env(f"environments/gen-{i:03d}", Change.CHANGED) for i in range(75)]
    envs += [distinct("environments/odd")]
    rendered = show(envs=envs)
    summary = rendered.blocks[0]["text"]["text"]
    assert summary.startswith(
        "*Proposal 1*: 1 file(s) changed, 76 environment(s) affected (76 resource(s) changed), "
        "in 2 group(s) with the same rendered diff but for each environment's own values (name, "
        "namespace, spec.json)\n"
    )
    assert "• *75 environments* (`environments/gen-000`, `environments/gen-001`," in summary
    assert "and 70 more): 0 added, 1 changed, 0 removed each" in summary
    assert "• `environments/odd`: 0 added, 1 changed, 0 removed" in summary
    assert_within_limits(rendered)


def test_past_ten_groups_the_rendered_diffs_go_to_a_file() -> None:
    envs = [distinct(f"environments/e{i}") for i in range(11)]
    rendered = show(envs=envs, rendered_diff="short\n")
    assert [s.filename for s in rendered.snippets] == ["rendered.diff"]
    ten = show(envs=envs[:10], rendered_diff="short\n")
    assert ten.snippets == ()


def test_fit_keeps_any_message_within_slacks_limits() -> None:
    many = Rendered("t" * 50_000, [section("x" * 2900) for _ in range(80)])
    fitted = fit(many)
    assert_within_limits(fitted, fences=False)
    assert fitted.blocks[0] == many.blocks[0]
    assert fitted.blocks[-1] == many.blocks[-1]
    small = plain("hello")
    assert fit(small) == small


def test_an_environment_failing_at_the_base_is_said_so_and_counted_apart() -> None:
    # As tools.tanka.diff.revision reports it: both revisions fail, the working tree's error kept.
    failing = EnvDiff(
        "environments/default",
        error="working tree: RUNTIME ERROR: field does not exist: x\n\tmain.jsonnet:1:1-5",
        already_failing=True,
    )
    broken = EnvDiff("environments/broken", error="working tree: RUNTIME ERROR: the change")
    rendered = show(envs=[failing, env("environments/prod", Change.CHANGED), broken])
    summary = rendered.blocks[0]["text"]["text"]
    head = summary.splitlines()[0]
    assert head == (
        "*Proposal 1*: 1 file(s) changed, 2 environment(s) affected; 1 environment already "
        "failing at the base (not compared)"
    )
    assert summary.splitlines()[1:] == [
        "• `environments/prod`: 0 added, 1 changed, 0 removed",
        "• `environments/broken`: cannot render: working tree: RUNTIME ERROR: the change",
        "• `environments/default`: already failing at the base, not this change's doing: "
        "RUNTIME ERROR: field does not exist: x",
    ]
    assert "already failing at the base" in rendered.text
    assert_within_limits(rendered)


def test_environments_failing_at_the_base_group_apart_from_ones_the_change_breaks() -> None:
    error = "working tree: RUNTIME ERROR: boom"
    before = [EnvDiff(f"environments/old-{i}", error=error, already_failing=True) for i in range(3)]
    now = [EnvDiff(f"environments/new-{i}", error=error) for i in range(2)]
    summary = show(envs=[*before, *now]).blocks[0]["text"]["text"]
    assert summary.splitlines() == [
        "*Proposal 1*: 1 file(s) changed, 2 environment(s) affected (0 resource(s) changed), in 1 "
        "group(s) with the same rendered diff but for each environment's own values (name, "
        "namespace, spec.json); 3 environments already failing at the base (not compared)",
        "• *2 environments* (`environments/new-0`, `environments/new-1`): cannot render: "
        "working tree: RUNTIME ERROR: boom",
        "• *3 environments* (`environments/old-0`, `environments/old-1`, `environments/old-2`): "
        "already failing at the base, not this change's doing: RUNTIME ERROR: boom",
    ]


def test_only_environments_failing_at_the_base_render_no_difference() -> None:
    failing = EnvDiff("environments/default", error="working tree: boom", already_failing=True)
    rendered = show(envs=[failing], rendered_diff="x\n")
    lines = rendered.blocks[0]["text"]["text"].splitlines()
    assert lines[0] == (
        "*Proposal 1*: 1 file(s) changed, 0 environment(s) affected; 1 environment already "
        "failing at the base (not compared)"
    )
    assert "• no Tanka environment renders differently" in lines


def test_an_environments_name_and_render_error_are_shown_as_written() -> None:
    # Both come from the repository: a directory's name, and a Jsonnet `error '…'` message.
    evil = "<!channel> see <https://evil.example|docs>"
    one = EnvDiff("environments/<!here>", error=f"RUNTIME ERROR: {evil} once")
    twins = [EnvDiff(f"environments/<@U0BOB>-{i}", error=f"RUNTIME ERROR: {evil}") for i in "ab"]
    base = EnvDiff("environments/old", error=f"x: {evil}", already_failing=True)
    summary = show(envs=[one, *twins, base]).blocks[0]["text"]["text"]
    assert "<!" not in summary
    assert "<@" not in summary
    assert "<https" not in summary
    assert "`environments/&lt;!here&gt;`: cannot render: RUNTIME ERROR: &lt;!channel&gt;" in summary


def test_the_reviewers_findings_ping_nobody() -> None:
    # The reviewer sub-agent reads the diff, the repository's words, which may talk it into one.
    review = "1 finding\n- <!channel> look at <@U0BOB>'s <!subteam^S0SRE> change"
    text = " ".join(str(b) for b in show(review=review).blocks)
    assert "<!" not in text
    assert "&lt;!channel&gt; look at <@U0BOB>'s &lt;!subteam^S0SRE&gt;" in text


def test_a_tool_calls_argument_in_the_status_is_shown_as_written() -> None:
    # The model picks the path it passes; what it read may have talked it into Slack syntax.
    line = progress(3, "file_read <!channel>|<https://evil.example|x>", None)
    assert "<" not in line
    assert "file_read &lt;!channel&gt;" in line
