"""The resident helper: a per-store process that keeps the modules imported
and the index generations open, and runs commands for the ``mem`` entry
point over a Unix socket in the store (an accelerator only: every command
works, with the same output, without it).

* ``server``: the socket, its lock, the accept loop, the wire format of
  requests and answers (``docs/format.md``, "Resident helper socket").

The front end (``cmds``) runs the commands and owns the client side.
"""
