"""mem shell: an alias of mem review."""

from .review import make_command

command = make_command("shell", "Alias of 'mem review': the interactive review shell.")
