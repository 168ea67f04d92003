"""The command line's lines for a student in Chinese: every template the commands give
minigrad.i18n.cli_text.line has a translation in minigrad/i18n/zh/cli.po with the same
placeholders (a changed English line fails until it is translated again), and
`minigrad course --lang zh` and `minigrad exercises --lang zh` print them."""

from __future__ import annotations

from minigrad.cli import main
from minigrad.i18n.cli_text import cli_texts, line
from support.catalogs import assert_in_step


def test_every_cli_line_has_a_chinese_translation() -> None:
    texts = cli_texts()
    assert "Wrote the exercises:" in texts and "  wrote {count} files" in texts
    assert_in_step("cli", texts, "python -m minigrad.i18n.update")


def test_a_line_fills_its_values_in_either_language() -> None:
    assert line("  wrote {count} files", "en", count=3) == "  wrote 3 files"
    assert line("  wrote {count} files", "zh", count=3) == "  写入了 3 个文件"


def test_the_chinese_course_and_exercises_speak_chinese(tmp_path, capsys) -> None:
    assert main(["course", str(tmp_path / "course"), "--lang", "zh", "--no-open"]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"课程文件夹：{tmp_path / 'course'}（中文）\n  写入了 ")
    assert "用这条命令打开：jupyter lab --ServerApp.root_dir=" in said
    assert main(["exercises", "1", "--to", str(tmp_path / "ex"), "--lang", "zh"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("已写入练习：\n") and f"给你的作业评分：minigrad grade {tmp_path / 'ex'}" in said
    assert main(["exercises", "1", "--to", str(tmp_path / "en"), "--lang", "en"]) == 0
    assert capsys.readouterr().out.startswith("Wrote the exercises:\n")


def test_minigrad_lessons_speaks_the_course_language(capsys) -> None:
    """`minigrad lessons --lang zh`: the titles, summaries and what the student builds in
    Chinese, the same words as the site's lesson table."""
    from minigrad.course.catalog import LESSONS
    from minigrad.i18n.documents import text

    assert main(["lessons", "--lang", "zh"]) == 0
    printed = capsys.readouterr().out
    for lesson in LESSONS:
        assert f"{lesson.number:02d}  {text(lesson.title, 'site', 'zh')}  (" in printed
    assert "你来实现：" in printed and "you build" not in printed
    assert main(["lessons", "--lang", "en"]) == 0
    assert "01  Derivatives and the chain rule  (about 1.5 hours)" in capsys.readouterr().out
