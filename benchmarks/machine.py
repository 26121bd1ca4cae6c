"""A description of the machine a benchmark ran on, so that its figures can be compared with another machine's."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gb() -> float | None:
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return None


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def commit(repo: os.PathLike[str] | str) -> str:
    """The checkout's commit, and whether files differ from it: the figures belong to that code."""
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    return f"{head} with uncommitted changes" if dirty else head


def describe() -> dict[str, str]:
    """CPU, memory, system and library versions, as table rows."""
    memory = _memory_gb()
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "CPU": f"{_cpu_model()}, {os.cpu_count()} logical CPUs",
        "memory": f"{memory:.1f} GiB" if memory else "unknown",
        "system": platform.platform(),
        "Python": sys.version.split()[0] + f" ({platform.python_implementation()})",
        "libraries": ", ".join(f"{p} {_version(p)}" for p in ("requests", "lxml", "beautifulsoup4", "pdfminer.six", "pypdfium2")),
        "load average at start (1/5/15 min)": load_average(),
    }
