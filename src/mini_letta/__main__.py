"""`python -m mini_letta`: the same entry point as the console script."""

from mini_letta.cli.main import run

if __name__ == "__main__":
    run()
