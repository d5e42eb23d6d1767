"""Where the package's warnings go: the running command's stderr, else Python's logging."""

from __future__ import annotations

import io
import logging
import threading

from mini_letta import log


def _in_thread(work) -> None:
    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_a_command_shows_its_own_warnings_as_lines():
    stderr = io.StringIO()
    with log.warnings_to(stderr):
        log.warning("%s line %d is damaged", "log.jsonl", 3)
        log.info("not shown to a command")
        log.debug("nor this")
    log.warning("after the command: not on its stderr")
    assert stderr.getvalue() == "mini-letta: warning: log.jsonl line 3 is damaged\n"


def test_a_helper_threads_warning_reaches_the_command():
    stderr = io.StringIO()
    with log.warnings_to(stderr):
        _in_thread(lambda: log.warning("from the watcher"))
    assert stderr.getvalue() == "mini-letta: warning: from the watcher\n"


def test_two_commands_on_two_threads_keep_their_warnings_apart():
    mine, theirs = io.StringIO(), io.StringIO()
    inside = threading.Event()
    done = threading.Event()

    def other_command() -> None:
        with log.warnings_to(theirs):
            inside.set()
            log.warning("theirs")
            done.wait(10)

    thread = threading.Thread(target=other_command)
    with log.warnings_to(mine):
        thread.start()
        assert inside.wait(10)
        log.warning("mine")
        done.set()
        thread.join(timeout=10)
    assert (mine.getvalue(), theirs.getvalue()) == (
        "mini-letta: warning: mine\n",
        "mini-letta: warning: theirs\n",
    )


def test_a_message_that_does_not_fit_its_arguments_is_still_shown():
    stderr = io.StringIO()
    with log.warnings_to(stderr):
        log.warning("%d files", "many")
    assert stderr.getvalue() == "mini-letta: warning: %d files ('many',)\n"


def test_a_closed_stderr_loses_the_warning_not_the_command():
    stderr = io.StringIO()
    stderr.close()
    with log.warnings_to(stderr):
        log.warning("nowhere to go")


def test_a_library_caller_gets_every_level_through_logging(caplog):
    with caplog.at_level(logging.DEBUG, logger=log.LOGGER):
        log.warning("w %d", 1)
        log.info("i")
        log.debug("d")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", "w 1"),
        ("INFO", "i"),
        ("DEBUG", "d"),
    ]
