"""Tests for pubfetch.net.browser.chromium: which Chromium binary JavaScript rendering uses (configured, then
Playwright's, then the system's), and the launch switches that keep it quiet."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pubfetch.config import FetchConfig
from pubfetch.net import browser
from pubfetch.net.browser import (
    UNAVAILABLE_MESSAGE,
    chromium,
    find_chromium,
)


def _chromium_or_skip() -> str:
    path = find_chromium()
    if path is None:
        pytest.skip(f"no Chromium found for the browser tests ({UNAVAILABLE_MESSAGE})")
    return path


def _fake_executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\nexit 1\n")
    path.chmod(0o755)
    return path


def test_find_chromium_order(tmp_path, monkeypatch):
    monkeypatch.delenv(browser.ENV_VAR, raising=False)
    configured = _fake_executable(tmp_path / "my-chrome")
    bundled = _fake_executable(tmp_path / "bundled-chrome")
    system = _fake_executable(tmp_path / "system-chromium")
    monkeypatch.setattr(chromium, "SYSTEM_CANDIDATES", (str(tmp_path / "absent"), str(system)))
    monkeypatch.setattr(chromium, "_bundled_chromium", lambda: str(bundled))
    assert find_chromium(str(configured)) == str(configured)
    assert find_chromium("/nonexistent/chrome") == str(bundled)  # a bogus configured path falls back
    assert find_chromium(str(tmp_path / "not-executable.txt")) == str(bundled)
    monkeypatch.setattr(chromium, "_bundled_chromium", lambda: str(tmp_path / "ms-playwright" / "chrome"))
    assert find_chromium("/nonexistent/chrome") == str(system)  # Playwright's browser not downloaded
    monkeypatch.setenv(browser.ENV_VAR, str(configured))  # read by the configuration, which passes it on
    assert find_chromium(FetchConfig.from_env(config_file="").run.chromium) == str(configured)
    monkeypatch.setattr(chromium, "SYSTEM_CANDIDATES", (str(tmp_path / "absent"),))
    monkeypatch.delenv(browser.ENV_VAR)
    assert find_chromium("/nonexistent/chrome") is None


def test_find_chromium_bogus_path_falls_back_to_a_real_browser(monkeypatch):
    monkeypatch.delenv(browser.ENV_VAR, raising=False)
    real = _chromium_or_skip()
    assert find_chromium("/nonexistent/chromium-binary") == real
    assert os.access(real, os.X_OK)


def test_choose_prefers_the_configured_then_the_bundled_then_a_system_browser(tmp_path, monkeypatch, caplog):
    configured = _fake_executable(tmp_path / "configured")
    bundled = _fake_executable(tmp_path / "bundled")
    system = _fake_executable(tmp_path / "system")
    monkeypatch.setattr(chromium, "SYSTEM_CANDIDATES", (str(tmp_path / "absent"), str(system)))
    assert chromium.choose_chromium(str(configured), str(bundled)) == str(configured)
    assert chromium.choose_chromium(None, str(bundled)) == str(bundled)
    assert chromium.choose_chromium("", None) == str(system)
    assert not caplog.records
    assert chromium.choose_chromium(str(tmp_path / "missing"), None) == str(system)
    assert "configured Chromium" in caplog.text and "is not an executable file" in caplog.text


def test_a_command_name_is_looked_up_on_path_and_a_file_must_be_executable(tmp_path, monkeypatch):
    tool = _fake_executable(tmp_path / "my-chromium")
    plain = tmp_path / "not-executable"
    plain.write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(chromium, "SYSTEM_CANDIDATES", ())
    assert chromium.choose_chromium("my-chromium", None) == str(tool)
    assert chromium.choose_chromium(str(plain), None) is None
    assert chromium.choose_chromium("not-executable", None) is None


def test_the_browser_is_started_quiet_and_without_udp_of_its_own():
    args = chromium.LAUNCH_ARGS
    assert "--headless" in args and "--disable-background-networking" in args and "--no-pings" in args
    assert set(chromium.WEBRTC_ARGS) <= set(args)
    assert all(arg.startswith("--") for arg in args)
    assert chromium.UNAVAILABLE_MESSAGE.endswith(f"or set {chromium.ENV_VAR}=/path")
