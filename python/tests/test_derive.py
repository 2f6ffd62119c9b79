"""The derivation stage (``zkdv.session._derive``): derived programs come through the cache,
work runs beside the caller, and nothing waits on work the stage never began."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from zkdv import passes
from zkdv.session import _derive

STEP = """
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<2xf32>):
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"""


def test_a_pipeline_runs_once_and_is_then_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZKDV_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ZKDV_CACHE", raising=False)
    runs: list[str] = []
    real = passes.run_passes

    def counted(text: str, pipeline: list[str], source: str) -> tuple[str, object]:
        runs.append(pipeline[0])
        return real(text, pipeline, source)

    monkeypatch.setattr(passes, "run_passes", counted)
    first = _derive.pipeline(STEP, "zkdv-inline", "<step>")
    again = _derive.pipeline(STEP, "zkdv-inline", "<step>")
    assert first == again and runs == ["zkdv-inline"]
    # Another pipeline or another text is another entry.
    _derive.pipeline(STEP.replace("add", "multiply"), "zkdv-inline", "<step>")
    assert len(runs) == 2


def test_work_runs_on_the_stage_and_its_error_reaches_the_caller() -> None:
    stage = _derive.Stage()
    try:
        began = threading.Event()

        def name() -> str:
            began.set()
            return threading.current_thread().name

        names = stage.submit(name)
        assert began.wait(10)
        assert names.result() == "zkdv-derive"

        def fails() -> None:
            raise ValueError("cannot be lowered")

        with pytest.raises(ValueError, match="cannot be lowered"):
            stage.submit(fails).result()
    finally:
        stage.close()


def test_work_the_stage_has_not_begun_is_done_by_whoever_needs_it() -> None:
    stage = _derive.Stage()
    release = threading.Event()
    try:
        busy = stage.submit(release.wait)
        queued = stage.submit(lambda: threading.current_thread().name)
        # The stage is held by the first task; the second runs here instead of waiting.
        assert queued.result() == threading.current_thread().name
        release.set()
        assert busy.result() is True
    finally:
        release.set()
        stage.close()
