"""mem demo."""

import shlex
import shutil
import tempfile
from importlib import resources
from pathlib import Path

import click

# not a credential: a credential would be redacted when written, and then the store never held it
SECRET = "the staging launch codename is quokka-harbor-4471"
CANARY = "quokka-harbor-4471"


def _run(home: Path, *args: str) -> int:
    from .main import cli
    click.echo(click.style("\n$ mem " + " ".join(shlex.quote(a) for a in args), fg="cyan", bold=True))
    rv = cli.main(args=["--home", str(home), *args], prog_name="mem", standalone_mode=False)
    code = rv if isinstance(rv, int) else 0
    if code:
        raise click.ClickException(f"demo step 'mem {' '.join(args)}' failed with exit {code}")
    return code


@click.command("demo")
@click.option("--keep", is_flag=True, help="Keep the temporary store and print its path.")
def command(keep):
    """Run the tour on bundled sample transcripts in a temporary store.

    Imports two sample Claude Code sessions (the second started a subagent,
    so three sessions are listed; one line is broken on purpose), searches
    them, remembers a fact twice and shows its log, then forgets a value,
    runs gc, proves the value is in no file of the store, and runs fsck.
    Your own store is not touched.

    \b
    Examples:
      mem demo
      mem demo --keep

    Exit status: 0 the tour ran; 1 a step failed.
    """
    from objstore import scan_store
    home = Path(tempfile.mkdtemp(prefix="mem-demo-"))
    sample = resources.files("cmds") / "data" / "sample-projects"
    try:
        with resources.as_file(sample) as sample_dir:
            click.echo(f"A temporary store at {home}; sample transcripts from {sample_dir}")
            click.echo(click.style("\n# one line of the first sample is truncated on purpose: it is skipped",
                                   fg="cyan"))
            _run(home, "import", "claude-code", str(sample_dir))
            click.echo(click.style("\n# importing again adds nothing", fg="cyan"))
            _run(home, "import", "claude-code", str(sample_dir))
        _run(home, "sessions")
        _run(home, "search", "flaky", "database", "fixture", "--limit", "3")
        _run(home, "remember", "project/acme-api/db", "Postgres 15 on port 5432")
        _run(home, "remember", "project/acme-api/db", "Postgres 16 on port 5433")
        _run(home, "remember", "project/acme-api/db", "Postgres 16 on port 5433")
        _run(home, "get", "project/acme-api/db")
        _run(home, "log", "project/acme-api/db")
        _run(home, "search", "postgres", "port", "--what", "facts")
        _run(home, "remember", "project/acme-api/staging-codename", SECRET)
        _run(home, "remember", "project/acme-api/staging-codename", SECRET + " (rotated)")
        click.echo(click.style("\n# the value is on disk now (the store holds it, compressed):", fg="cyan"))
        click.echo(f"files containing it before forget: {len(scan_store(home, [CANARY.encode()]))}")
        _run(home, "forget", "project/acme-api/staging-codename", "--yes")
        click.echo(click.style("\n# forget already deleted the versions; gc sweeps anything else unreachable",
                               fg="cyan"))
        _run(home, "gc", "--prune=now")
        click.echo(click.style("\n# is the forgotten text anywhere under the store (raw or decompressed)?", fg="cyan"))
        hits = scan_store(home, [CANARY.encode()])
        click.echo(f"files containing it: {len(hits)}" + (f" {hits}" if hits else ""))
        from objstore import open_store
        with open_store(home) as st:
            terms = st.index.term_doc_freq("quokka")
        click.echo(f"documents in the search index's term dictionary with the word: {sum(terms.values())}")
        click.echo(click.style("# so a search finds nothing:", fg="cyan"))
        _run(home, "search", "quokka", "--json")
        _run(home, "fsck")
        if hits or sum(terms.values()):
            raise click.ClickException("the forgotten text was found on disk")
        click.echo(click.style("\nThe tour ran. Try it on your own transcripts: mem import claude-code ~/.claude/projects",
                               fg="green"))
    finally:
        if keep:
            click.echo(f"store kept at {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
