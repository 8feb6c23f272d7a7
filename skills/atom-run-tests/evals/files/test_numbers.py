"""Four tests, one of which fails: the eval asks for the counts."""


def test_add() -> None:
    assert 1 + 1 == 2


def test_subtract() -> None:
    assert 3 - 1 == 2


def test_multiply() -> None:
    assert 2 * 3 == 6


def test_divide() -> None:
    assert 7 / 2 == 3, "7 / 2 is 3.5 in Python 3"


if __name__ == "__main__":
    import sys

    failed = 0
    for name, test in sorted(globals().items()):
        if name.startswith("test_"):
            try:
                test()
            except AssertionError as exc:
                failed += 1
                print(f"FAILED {name}: {exc}")
    print(f"{4 - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
