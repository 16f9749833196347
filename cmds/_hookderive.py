"""The SessionStart hook's start of ``mem derive --auto`` (moved out of ``cmds/_hookrun.py``, session 43: that
module was at the 40,960-byte limit).  Imported by the hook only on SessionStart with capture on."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def start_derive_auto(run, store) -> bool:
    """``derive.auto``: when a run is due (``objstore.derive.auto``), start
    ``mem derive --auto`` as a detached process (new session, stdio on
    /dev/null) and return at once: the hook never waits for a model and
    takes no lock for it (the child claims the day under the lock, then
    calls the model holding none).  True when a process was started."""
    import objstore
    cfg = objstore.derive_config(store.root)
    if cfg.get("auto") is not True:
        return False
    prov = objstore.derive_provider(cfg, run.env)
    status = objstore.derive_auto_status(store, cfg, prov)
    if status == "state-damaged":   # said, not run: mem doctor names the file
        run.log("derive-state-damaged")
    if status != "due":
        return False
    import subprocess

    import cmds
    env = {**run.env, "MEM_HOME": str(store.root)}
    here = str(Path(cmds.__file__).resolve().parent.parent)   # the child imports the same mem
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    subprocess.Popen([sys.executable, "-m", "cmds", "derive", "--auto"], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                     close_fds=True, env=env, cwd=str(store.root))
    return True
