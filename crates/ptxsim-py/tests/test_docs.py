"""The README's Python quick start and the example script work as written."""

import re
import subprocess
import sys

from _util import REPO


def readme_python_section():
    text = (REPO / "README.md").read_text()
    start = text.index("\n## Python\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_readme_quick_start_prints_what_the_readme_shows():
    section = readme_python_section()
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"prints:\n\n```text\n(.*?)```", section, re.S).group(1)
    p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == shown


def test_example_compares_evict_last_with_no_hint():
    p = subprocess.run([sys.executable, str(REPO / "examples" / "triton_evict_last.py")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert out.count("kernel `add_table` on a100-l2-256k") == 2
    assert "=== no hint ===" in out and '=== eviction_policy="evict_last" on the table ===' in out
    dram = re.search(r"DRAM bytes read\s+(\d+)\s+(\d+)", out)
    assert int(dram.group(2)) < int(dram.group(1)), out
