"""A tiny command line the eval's plan is about."""

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(prog="tiny")
    parser.add_argument("name")
    args = parser.parse_args()
    print(f"hello {args.name}")


if __name__ == "__main__":
    main()
