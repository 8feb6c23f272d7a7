"""Quick imports of heavy libraries (`workbench.processes.heavy_imports`): what they change must
not show, except in time. Models built late validate as they would have at once; the collector
and pydantic's defaults come back."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from pydantic import BaseModel, ValidationError

from workbench.processes import heavy_imports


@pytest.fixture(autouse=True)
def collector_back() -> Iterator[None]:
    """A failed test here must not leave the test process without its collector, or with
    everything it made frozen out of the collector's sight."""
    yield
    gc.enable()
    gc.unfreeze()


def test_models_defined_in_a_quick_import_build_when_first_used() -> None:
    assert gc.isenabled()
    with heavy_imports.quick():
        assert not gc.isenabled()

        class Late(BaseModel):
            count: int

    assert gc.isenabled()
    assert not Late.__pydantic_complete__
    assert Late(count="3").count == 3
    with pytest.raises(ValidationError):
        Late(count="three")

    class AtOnce(BaseModel):
        count: int

    assert AtOnce.__pydantic_complete__, "pydantic's own default is back"


def test_overlapping_quick_imports_give_everything_back_at_the_last_end() -> None:
    first, second = heavy_imports.quick(), heavy_imports.quick()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled(), "the second import still runs"
    second.__exit__(None, None, None)
    assert gc.isenabled()
