"""tools/device_copy_size.py: a device call's copy of the working tree, counted as a tar archive
stores it, against the device tool's 64 MiB limit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aka.evaluate.loading import load_module

TOOL = Path(__file__).resolve().parents[2] / "tools" / "device_copy_size.py"


@pytest.fixture
def tool():
    return load_module(str(TOOL), "device_copy_size_tool")


@pytest.fixture
def repo(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(".carry/\nbuild/\n")
    (tmp_path / "tracked.txt").write_bytes(b"x" * 1000)
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    (tmp_path / "untracked.txt").write_bytes(b"y" * 10)            # not ignored: copied too
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "big.bin").write_bytes(b"z" * 5000)      # ignored and not carried: left out
    (tmp_path / ".carry").mkdir()
    (tmp_path / ".carry" / "a.sh").write_bytes(b"s" * 513)
    return tmp_path


def test_a_file_costs_a_header_and_whole_blocks(tool):
    assert [tool.tar_bytes(n) for n in (0, 1, 512, 513)] == [512, 1024, 1024, 1536]


def test_counts_tracked_untracked_and_carried_files_but_not_ignored_ones(tool, repo, capsys):
    assert tool.main(["--root", str(repo), "--carry", ".carry", "--top", "1"]) == 0
    out = capsys.readouterr().out
    # .gitignore (18 B), tracked.txt (1000), untracked.txt (10), .carry/a.sh (513): 1541 bytes of data
    assert out.startswith("4 files, 0.00 MB of data") and "under the 67.11 MB (64 MiB) limit" in out
    assert "tracked.txt" in out.splitlines()[1]
    counted = sum(tool.tar_bytes(n) for n in (18, 1000, 10, 513))
    assert counted == 4 * 512 + (512 + 1024 + 512 + 1024)            # four headers, then the padded data
    assert tool.main(["--root", str(repo), "--top", "0"]) == 0         # without the carried file
    assert capsys.readouterr().out.startswith("3 files")


def test_over_the_limit_is_exit_1(tool, repo, monkeypatch, capsys):
    monkeypatch.setattr(tool, "LIMIT", 4096)
    assert tool.main(["--root", str(repo), "--carry", ".carry"]) == 1
    assert "over the" in capsys.readouterr().out


def test_a_missing_carry_path_is_named(tool, repo):
    with pytest.raises(SystemExit, match="--carry .whl: no such path"):
        tool.main(["--root", str(repo), "--carry", ".whl"])
