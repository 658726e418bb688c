"""The core's messages in Python's terms: the core words its refusals for the command line (--out,
--resume, ...), and a Python caller needs the keywords of scalinglab.run instead."""

import re

# CLI options of `run` -> keywords of scalinglab.run, for its messages.
_RUN_KEYWORDS = {"--resume": "resume=True", "--out": "out=", "--set": "set=", "--profile": "profile=",
                 "--threads": "threads=", "--max-points": "set_limits(max_points=)",
                 "--max-tasks": "set_limits(max_tasks=)", "--max-memory": "set_limits(max_memory=)",
                 "--max-work": "set_limits(max_work=)"}


def _run_terms(message):
    return re.sub(r"--[a-z][a-z-]*", lambda m: _RUN_KEYWORDS.get(m.group(0), m.group(0)), message)


def _folder_terms(message):
    """The command line's advice about a folder already used, with overwrite=True added (Python has
    it, the command line does not)."""
    message = message.replace(
        "already holds results: pass --resume to continue that run, or choose another --out",
        "already holds results: pass resume=True to continue that run (the tasks done are kept), "
        "overwrite=True to delete them and run again, or choose another out=")
    if "holds the outputs of sweep" in message or "holds results of seed" in message:
        message = message.replace(": choose another --out", ": choose another out=, or pass overwrite=True to "
                                                            "delete those results")
    return message
