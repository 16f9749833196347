"""The review shell behind ``mem review`` / ``mem shell`` (litecli's structure).

* ``commands.py``: what each shell command does, as plain functions over a
  :class:`~cmds.shell.commands.ShellState` returning a ``Reply`` (no terminal,
  no prompt_toolkit; tested directly), plus a line-by-line runner for
  scripts;
* ``meta.py``: the ``@meta_command`` registry those functions register in;
* ``suggest.py``: pure completion logic, ``suggest(text, catalog)``;
* ``completer.py``: the thin prompt_toolkit ``Completer`` over it, behind a
  ``DynamicCompleter`` whose catalog is refreshed in the background;
* ``keybindings.py``: ``make_bindings()``;  ``toolbar.py``: the bottom
  toolbar's tokens;  ``app.py``: the ``PromptSession`` and its loop.

Only ``completer``, ``keybindings`` and ``app`` import prompt_toolkit, and
only ``mem review`` imports them.
"""
