"""The README opens with the two set-up commands, and CI runs the second."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_readme_opens_with_two_commands_and_ci_runs_the_test_one():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(block) == 2
    install_demo, install_test = block
    assert install_demo.endswith("mem demo")
    assert "pytest" in install_test
    assert text.index("```sh") < text.index("## ")  # before any section
    assert install_test in (REPO / ".ci" / "run").read_text(encoding="utf-8")
