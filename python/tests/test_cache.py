"""The derivation cache (``zkdv._cache``): a later session of the same code reuses what an
earlier one derived, verified by the hash stored with it, and never fails because of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from zkdv import _cache


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZKDV_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ZKDV_CACHE", raising=False)
    return tmp_path / "cache"


def counting(data: bytes) -> tuple[list[int], object]:
    calls: list[int] = []

    def derive() -> bytes:
        calls.append(1)
        return data

    return calls, derive


def test_an_entry_is_derived_once_and_then_read(folder: Path) -> None:
    name = _cache.key("seal", "step text", "versions")
    calls, derive = counting(b"package")
    assert _cache.cached(name, derive) == b"package"  # type: ignore[arg-type]
    assert _cache.cached(name, derive) == b"package"  # type: ignore[arg-type]
    assert len(calls) == 1 and (folder / name).is_file()
    # Another step, another version: another entry.
    assert _cache.key("seal", "step text", "other") != name
    assert _cache.key("seal", "step tex", "tversions") != _cache.key(
        "seal", "step text", "versions"
    )


def test_an_entry_that_does_not_rehash_is_derived_again(folder: Path) -> None:
    name = _cache.key("seal", "step")
    calls, derive = counting(b"package")
    _cache.cached(name, derive)  # type: ignore[arg-type]
    path = folder / name
    content = bytearray(path.read_bytes())
    content[-1] ^= 1  # a flipped bit in the stored bytes
    path.write_bytes(bytes(content))
    assert _cache.cached(name, derive) == b"package"  # type: ignore[arg-type]
    assert len(calls) == 2
    path.write_bytes(b"short")  # a torn write
    assert _cache.cached(name, derive) == b"package"  # type: ignore[arg-type]
    assert len(calls) == 3 and path.read_bytes().endswith(b"package")


def test_zkdv_cache_0_turns_it_off(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZKDV_CACHE", "0")
    calls, derive = counting(b"x")
    name = _cache.key("seal", "step")
    _cache.cached(name, derive)  # type: ignore[arg-type]
    _cache.cached(name, derive)  # type: ignore[arg-type]
    assert len(calls) == 2 and not folder.exists()


def test_the_cache_keeps_its_size_by_removing_the_least_recently_used(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZKDV_CACHE_MAX_BYTES", "300")
    import os
    import time

    names = [_cache.key("seal", str(i)) for i in range(3)]
    for i, name in enumerate(names):
        _cache.cached(name, lambda: b"x" * 100)
        os.utime(folder / name, (time.time() - 100 + i, time.time() - 100 + i))
    # Three entries of 132 bytes (hash and data) exceed 300: the oldest went.
    assert sorted(p.name for p in folder.iterdir()) == sorted(names[1:])


def test_an_unwritable_cache_is_a_miss_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    monkeypatch.setenv("ZKDV_CACHE_DIR", str(blocker / "cache"))  # a folder inside a file
    calls, derive = counting(b"y")
    assert _cache.cached(_cache.key("seal", "s"), derive) == b"y"  # type: ignore[arg-type]


def test_a_second_torch_session_of_the_same_code_does_not_seal_again(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_mlir")
    from torch import nn
    from torch.nn import functional

    import zkdv
    from zkdv import transcript
    from zkdv.torch.lowering import process

    seals: list[int] = []

    def seal(exported: Path) -> bytes:  # the compile itself is tested in test_torch.py
        assert exported.is_file()  # the lowering process saved the exported step for it
        seals.append(1)
        return b"sealed package " + str(len(seals)).encode()

    monkeypatch.setattr(process, "seal", seal)

    def session(directory: Path) -> bytes:
        torch.manual_seed(0)
        model = nn.Linear(10, 2)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        proof = zkdv.torch.ZKDV(directory)
        proof.start(rolling_window=8, probe_ratio=0.5)
        model, optimizer = proof.prepare(model, optimizer)

        @proof.attest
        def step(model, optimizer, batch):  # type: ignore[no-untyped-def]
            inputs, targets = batch
            proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
            optimizer.step()
            optimizer.zero_grad()

        inputs, targets = torch.randn(8, 10), torch.randint(2, (8,))
        with proof.transaction(batch=(inputs, targets)):
            step(model, optimizer, (inputs, targets))
        proof.close()
        records = transcript.read_records(directory)
        (record,) = [r for r in records if r["kind"] == "production"]
        return bytes(record["body"]["production"]["blake3"])

    first = session(tmp_path / "first")
    second = session(tmp_path / "second")
    assert len(seals) == 1 and first == second  # the same package committed, sealed once
    # The lowering cached, the package not (evicted): the step is exported again to seal it.
    lowered = [entry for entry in folder.iterdir() if entry.name.startswith("torch-lowering-")]
    assert len(lowered) == 1
    for entry in folder.iterdir():
        if entry.name.startswith("seal-"):
            entry.unlink()
    session(tmp_path / "fourth")
    assert len(seals) == 2
    monkeypatch.setenv("ZKDV_CACHE", "0")
    session(tmp_path / "third")
    assert len(seals) == 3
