"""The examples in the public API's docstrings run as written (they are the API pages')."""

import doctest
import importlib

import pytest

import zkdv

MODULES = ["zkdv.config", "zkdv.hashing", "zkdv.testing"]


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, globs={"zkdv": zkdv}, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
