"""Where a remote's bytes live: a folder, or an S3-compatible bucket.

A transport stores named blobs (``/``-separated names under the remote's
root or prefix) and offers exactly the four primitives the remote protocol
needs (``objstore/remote/sync.py``, ``docs/format.md`` "Remotes"):

* :meth:`Transport.read` -> ``(bytes, etag)``;
* :meth:`Transport.create` - write a name only if it does not exist
  (S3 ``If-None-Match: *``; a folder: ``link(2)`` of a complete temp file);
* :meth:`Transport.swap` - compare-and-swap on an etag (S3 ``If-Match``;
  a folder: an ``flock`` on ``<name>.lock``, compare, rename);
* :meth:`Transport.delete`, :meth:`Transport.list`;
* :meth:`Transport.stat` - ``(size, etag)`` from the backend's metadata (S3
  ``HEAD``; a folder: ``stat(2)``), so a push checks an upload without
  reading it back (``objstore.remote.sync.upload_check``).

The S3 transport uses ``obstore`` (the ``memvcs[s3]`` extra; ~30 ms to
import, against ~166 ms for boto3), imported only when an S3 remote is
opened.  Credentials come from the mapping the caller passes (the CLI passes
the ``AWS_*`` variables it runs with); they are never written anywhere.

Errors: :class:`RemoteUnavailable` (exit 15) for an endpoint that does not
answer, refused credentials, a missing bucket or folder;
:class:`NotFound` for a missing name; :class:`RefConflict` when a
compare-and-swap loses.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from objstore.core.atomic import atomic_write, fsync_dir, open_regular
from objstore.core.errors import InvalidInput, NotFound, RefConflict, RemoteUnavailable

#: the ``AWS_*`` settings an S3 remote reads from the mapping it is given
S3_SETTINGS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
               "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE")


@dataclass(frozen=True)
class RemoteURL:
    """A parsed remote URL: ``kind`` ``folder`` (``path``) or ``s3``
    (``bucket``, ``prefix``)."""

    kind: str
    path: str = ""
    bucket: str = ""
    prefix: str = ""

    def __str__(self) -> str:
        if self.kind == "s3":
            return f"s3://{self.bucket}/{self.prefix}".rstrip("/")
        return self.path


def parse_url(url: str) -> RemoteURL:
    """``s3://bucket[/prefix]``, ``file:///abs/path`` or a plain path
    (made absolute; a leading ``//`` is ``/``, as Linux reads it).  The
    scheme is read in any case (``FILE://``, ``S3://``: RFC 3986 §3.1).
    Raises InvalidInput (empty, a control character, ``file://`` with no
    path, another scheme)."""
    if not url or not url.strip():
        raise InvalidInput("the remote URL is empty")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in url):   # (test41 T15: a newline forged a status line)
        raise InvalidInput("the remote URL holds a control character (a newline, a tab)",
                           hint="name a folder or s3://bucket/prefix on one line")
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in ("s3", "file") and scheme != scheme.lower():
        url = scheme.lower() + sep + rest   # (test40 T13: 'FILE:///x' was refused)
    if url.startswith("s3://"):
        u = urlparse(url)
        if not u.netloc:
            raise InvalidInput(f"bad S3 URL {url!r}: want s3://bucket/prefix")
        return RemoteURL("s3", bucket=u.netloc, prefix=u.path.strip("/"))
    if url.startswith("file://"):
        u = urlparse(url)
        if u.netloc not in ("", "localhost"):
            raise InvalidInput(f"bad file URL {url!r}: want file:///absolute/path")
        if not u.path:   # (test41 T15: 'file://' became the working folder)
            raise InvalidInput(f"the file URL {url!r} names no folder: want file:///absolute/path")
        path = os.path.abspath(u.path)
        return RemoteURL("folder", path="/" + path.lstrip("/") if path.startswith("//") else path)
    if "://" in url:
        # the scheme only: the rest may hold a user or a key (test16b B10)
        raise InvalidInput(f"unsupported remote URL scheme {url.partition('://')[0][:20]!r}",
                           hint="use s3://bucket/prefix or a folder path")
    path = os.path.abspath(os.path.expanduser(url))
    return RemoteURL("folder", path="/" + path.lstrip("/") if path.startswith("//") else path)


class Transport:
    """Named blobs at a remote (see the module doc)."""

    where: str = ""

    def read(self, name: str) -> tuple[bytes, str]:
        """``(content, etag)``.  Raises NotFound, RemoteUnavailable."""
        raise NotImplementedError

    def create(self, name: str, data: bytes) -> bool:
        """Write ``name`` unless it exists; True if written, False if it was there."""
        raise NotImplementedError

    def swap(self, name: str, data: bytes, etag: str | None) -> str:
        """Replace ``name`` if its etag is ``etag`` (None: it must not exist);
        returns the new etag.  Raises RefConflict when it changed."""
        raise NotImplementedError

    def delete(self, name: str) -> None:
        """Delete ``name`` (no error if missing)."""
        raise NotImplementedError

    def list(self, prefix: str) -> list[tuple[str, int, float]]:
        """``(name, size, mtime seconds)`` of every name starting with ``prefix``."""
        raise NotImplementedError

    def stat(self, name: str) -> tuple[int, str | None]:
        """``(size in bytes, the backend's etag or None)`` of ``name``, without
        reading it.  Raises NotFound, RemoteUnavailable."""
        raise NotImplementedError

    def stamps(self, prefix: str) -> dict[str, tuple[int, float, str]]:
        """name -> ``(size, mtime seconds, etag or "")`` of every name starting
        with ``prefix``, from one listing: what changes when a file is
        rewritten, damaged or cut short (a pull or push compares it with the
        stamp it recorded when it last verified a pack).  Raises
        RemoteUnavailable."""
        return {n: (size, mtime, "") for n, size, mtime in self.list(prefix)}

    def check(self) -> None:
        """Raise RemoteUnavailable when the remote cannot be reached at all."""

    def versioning(self) -> str | None:
        """``"enabled"`` when the remote keeps old versions of what is
        overwritten or deleted (S3 bucket versioning), None when it does not
        or cannot tell."""
        return None


def _why(e: OSError) -> str:
    """``e``'s reason and the path it names ("Is a directory (…/manifest.lock)": fresh43 F12), else its reason."""
    return f"{e.strerror} ({e.filename})" if e.filename else str(e.strerror or e)


class FolderTransport(Transport):
    """A remote in a local folder (a USB disk, a synced folder).

    The folder must exist, as an S3 bucket must: mem never creates it, so a
    push to a disk that is not mounted fails (exit 15) instead of filling
    the empty mount point on the system disk.  The first push writes the
    remote's descriptor into the (empty) folder."""

    def __init__(self, root: str, *, create: bool = False) -> None:
        self.root = Path(root)
        self.where = str(self.root)
        self.for_writer = create   # (not `create`: a Transport method of that name)

    def check(self) -> None:
        if not self.root.is_dir():
            if self.root.exists():
                raise RemoteUnavailable(f"the remote folder {self.root} is not a folder",
                                        hint="a folder remote names a folder, not a file ('mem remote list' shows the "
                                             "remotes' paths)")
            raise RemoteUnavailable(f"the remote folder {self.root} does not exist",
                                    # a reader (pull, clone, restore) gets no mkdir hint: an empty folder
                                    # holds no remote either (fresh41 F10)
                                    hint=f"create it first (mkdir -p {self.root}), or mount its disk" if self.for_writer
                                    else "check the path, or mount its disk: a pull, clone or restore reads a "
                                         "folder a push wrote")
        packs = self.root / "packs"
        if packs.exists() and not packs.is_dir():   # (it read as "remote pack … is missing": fresh43 F12)
            raise RemoteUnavailable(f"{packs} is not a folder, where the remote keeps its packs",
                                    hint="move it out of the way, then run 'mem push --repair' from a machine "
                                         "that has the data")

    def _mkdir(self, d: Path) -> None:
        """Create ``d`` inside the remote folder, never the folder itself."""
        self.check()
        d.mkdir(parents=True, exist_ok=True)

    def _p(self, name: str) -> Path:
        if not name or name.startswith("/") or ".." in name.split("/"):
            raise InvalidInput(f"bad remote name {name!r}")
        return self.root / name

    def read(self, name: str) -> tuple[bytes, str]:
        try:
            with open_regular(self._p(name)) as f:   # a FIFO there: never waited on (session 23 Y10)
                data = f.read()
        except FileNotFoundError:
            self.check()
            raise NotFound(f"{name} is not on the remote {self.where}") from None
        except OSError as e:
            self.check()        # the remote path is a file, not a folder: say so
            raise RemoteUnavailable(f"cannot read {name} from {self.where}: {e.strerror}") from None
        return data, _etag(data)

    def create(self, name: str, data: bytes) -> bool:
        p = self._p(name)
        if p.exists():
            return False
        try:
            self._mkdir(p.parent)
            tmp = p.with_name(f".{p.name}.tmp{os.getpid()}")
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, p)     # atomic create-if-absent of a complete file
                created = True
            except FileExistsError:
                created = False
            finally:
                tmp.unlink(missing_ok=True)
            fsync_dir(p.parent)
            return created
        except OSError as e:
            raise RemoteUnavailable(f"cannot write {name} to {self.where}: {_why(e)}") from None

    def swap(self, name: str, data: bytes, etag: str | None) -> str:
        p = self._p(name)
        try:
            self._mkdir(p.parent)
            fd = os.open(p.with_name(p.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise RemoteUnavailable(f"cannot write {name} to {self.where}: {_why(e)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)   # the kernel drops it if we die
            try:
                cur = _etag(p.read_bytes())
            except FileNotFoundError:
                cur = None
            if cur != etag:
                raise RefConflict(f"remote {name}", etag, cur)
            atomic_write(p, data)
            return _etag(data)
        finally:
            os.close(fd)

    def stat(self, name: str) -> tuple[int, str | None]:
        try:
            return self._p(name).stat().st_size, None
        except FileNotFoundError:
            raise NotFound(f"{name} is not on the remote {self.where}") from None
        except OSError as e:
            raise RemoteUnavailable(f"cannot read {name} from {self.where}: {e.strerror}") from None

    def delete(self, name: str) -> None:
        try:
            self._p(name).unlink()
        except FileNotFoundError:
            pass
        except OSError as e:
            raise RemoteUnavailable(f"cannot delete {name} from {self.where}: {e.strerror}") from None

    def list(self, prefix: str) -> list[tuple[str, int, float]]:
        out = []
        base = self.root
        for d, _dirs, files in os.walk(base):
            for f in files:
                if f.startswith(".") or f.endswith(".lock"):
                    continue
                full = Path(d) / f
                name = str(full.relative_to(base))
                if name.startswith(prefix):
                    try:
                        st = full.stat()
                    except FileNotFoundError:   # deleted by another writer since the walk
                        continue
                    if not stat.S_ISREG(st.st_mode):   # a FIFO, a device: no blob (session 23 Y10)
                        continue
                    out.append((name, st.st_size, st.st_mtime))
        return sorted(out)

    def stamps(self, prefix: str) -> dict[str, tuple[int, float, str]]:
        """As :meth:`Transport.stamps`, the etag the blake3 hex of the file's
        bytes: a folder's size and mtime say nothing of a byte changed in
        place with its mtime set back (``touch -r``), so every file is read
        and hashed (about 3 GB/s: 4 ms for the 13 MB of a 37,000-turn store;
        docs/benchmarks.md).  A file deleted since the walk is left out."""
        import blake3  # deferred: only a sync lists stamps
        out = {}
        for name, size, mtime in self.list(prefix):
            try:
                h = blake3.blake3(max_threads=1)
                with open_regular(self.root / name) as f:
                    while chunk := f.read(1 << 20):
                        h.update(chunk)
            except FileNotFoundError:
                continue
            except OSError as e:
                raise RemoteUnavailable(f"cannot read {name} from {self.where}: {e.strerror}") from None
            out[name] = (size, mtime, h.hexdigest())
        return out


def _etag(data: bytes) -> str:
    import hashlib
    return hashlib.sha256(data).hexdigest()


#: the instance metadata service, where the S3 client asks for a role's credentials when it has none
IMDS_HOST = "169.254.169.254"
NO_CREDENTIALS_HINT = ("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), "
                       "or AWS_PROFILE (read from ~/.aws with boto3), or run where an instance or container role "
                       "provides them (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_CONTAINER_CREDENTIALS_*, the instance "
                       "metadata service)")


class S3Transport(Transport):
    """A remote in an S3-compatible bucket, through ``obstore``.

    Args:
        url: the parsed ``s3://bucket/prefix``.
        endpoint: the service URL (``http://127.0.0.1:9000``); default
            ``AWS_ENDPOINT_URL(_S3)`` from ``env``, else AWS.
        env: the ``AWS_*`` settings (access key, secret, session token,
            region, profile).
    """

    def __init__(self, url: RemoteURL, *, endpoint: str | None = None, env: Mapping[str, str] | None = None) -> None:
        try:
            import obstore  # the memvcs[s3] extra
            from obstore.store import S3Store
        except ImportError:
            raise RemoteUnavailable("S3 remotes need the s3 extra",
                                    hint="pip install 'memvcs[s3]' (from a clone of mem: pip install '.[s3]' in it)") from None
        self._ob = obstore
        env = dict(env or {})
        endpoint = endpoint or env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
        self.bucket, self.prefix = url.bucket, url.prefix
        self.endpoint = endpoint
        self.where = str(url) + (f" at {endpoint}" if endpoint else "")
        cfg: dict = {"region": env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1"}
        if env.get("AWS_ACCESS_KEY_ID"):
            cfg["access_key_id"] = env["AWS_ACCESS_KEY_ID"]
            cfg["secret_access_key"] = env.get("AWS_SECRET_ACCESS_KEY", "")
            if env.get("AWS_SESSION_TOKEN"):
                cfg["token"] = env["AWS_SESSION_TOKEN"]
        kw: dict = {}
        if not env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_PROFILE"):
            try:  # profiles: through boto3's resolver when boto3 is installed
                from obstore.auth.boto3 import Boto3CredentialProvider
                import boto3
                kw["credential_provider"] = Boto3CredentialProvider(boto3.Session(profile_name=env["AWS_PROFILE"]))
            except ImportError:
                raise RemoteUnavailable("AWS_PROFILE needs boto3 to read the profile",
                                        hint="pip install boto3, or set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY") from None
        if endpoint:
            cfg["endpoint"] = endpoint
        self._cfg = cfg
        self._own_creds = bool(env.get("AWS_ACCESS_KEY_ID") or env.get("AWS_PROFILE"))
        import datetime
        self.s = S3Store(self.bucket, prefix=self.prefix or None, config=cfg, **kw,
                         client_options={"allow_http": bool(endpoint and endpoint.startswith("http://")),
                                         "connect_timeout": "5s", "timeout": "120s"},
                         retry_config={"max_retries": 2, "backoff": {"init_backoff": datetime.timedelta(milliseconds=100),
                                                                      "max_backoff": datetime.timedelta(seconds=2),
                                                                      "base": 2},
                                       "retry_timeout": datetime.timedelta(seconds=20)})

    def _fail(self, e: Exception, what: str):
        """The RemoteUnavailable that says what ``e`` (an obstore error of
        ``what``) means: no bucket, no credentials found (neither keys nor a
        profile, and no instance or container role answered: test32 X7),
        credentials refused, an endpoint that does not answer, or else its
        first line."""
        msg = str(e)
        first = msg.splitlines()[0] if msg else type(e).__name__
        if "NoSuchBucket" in msg:
            return RemoteUnavailable(f"the bucket {self.bucket!r} does not exist ({self.where})",
                                     hint="create it first, or check the URL and --endpoint")
        if not self._own_creds and any(s in msg for s in (IMDS_HOST, "169.254.170.2", "credential")):
            # no keys and no profile: the client fell back to the instance/container role, which did not answer
            return RemoteUnavailable(f"no AWS credentials found for {self.where}", hint=NO_CREDENTIALS_HINT)
        if any(s in msg for s in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "403 Forbidden",
                                   "ExpiredToken", "InvalidToken")):
            return RemoteUnavailable(f"the S3 service refused the credentials for {self.where}",
                                     hint="check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)")
        if "error sending request" in msg or "connect" in msg.lower() or "timed out" in msg.lower():
            return RemoteUnavailable(f"cannot reach {self.where}: the endpoint does not answer",
                                     hint="check --endpoint / AWS_ENDPOINT_URL and the network")
        return RemoteUnavailable(f"{what} on {self.where} failed: {first[:300]}")

    def _missing(self, e: Exception, name: str, what: str) -> Exception:
        """What a "not found" from the store means: no bucket (the remote
        cannot be used) or no such object (``NotFound``)."""
        if "NoSuchBucket" in str(e):
            return self._fail(e, what)
        return NotFound(f"{name} is not on the remote {self.where}")

    def read(self, name: str) -> tuple[bytes, str]:
        try:
            r = self._ob.get(self.s, name)
            data = bytes(r.bytes())
            return data, r.meta.get("e_tag") or _etag(data)
        except FileNotFoundError as e:
            raise self._missing(e, name, "read") from None
        except Exception as e:
            raise self._fail(e, f"reading {name}") from None

    def create(self, name: str, data: bytes) -> bool:
        from obstore.exceptions import AlreadyExistsError, PreconditionError
        try:
            self._ob.put(self.s, name, data, mode="create")
            return True
        except (AlreadyExistsError, PreconditionError):
            return False
        except Exception as e:
            raise self._fail(e, f"writing {name}") from None

    def swap(self, name: str, data: bytes, etag: str | None) -> str:
        from obstore.exceptions import AlreadyExistsError, PreconditionError
        try:
            if etag is None:
                r = self._ob.put(self.s, name, data, mode="create")
            else:
                r = self._ob.put(self.s, name, data, mode={"e_tag": etag})
            return r["e_tag"] or ""
        except (AlreadyExistsError, PreconditionError, FileNotFoundError) as e:
            if "NoSuchBucket" in str(e):
                raise self._fail(e, "write") from None
            raise RefConflict(f"remote {name}", etag, "(changed)") from None
        except Exception as e:
            raise self._fail(e, f"writing {name}") from None

    def stat(self, name: str) -> tuple[int, str | None]:
        try:
            m = self._ob.head(self.s, name)
            return int(m["size"]), m.get("e_tag")
        except FileNotFoundError as e:
            raise self._missing(e, name, "stat") from None
        except Exception as e:
            raise self._fail(e, f"reading the size of {name}") from None

    def delete(self, name: str) -> None:
        try:
            self._ob.delete(self.s, name)
        except FileNotFoundError:
            pass
        except Exception as e:
            raise self._fail(e, f"deleting {name}") from None

    def list(self, prefix: str) -> list[tuple[str, int, float]]:
        try:
            out = []
            for batch in self._ob.list(self.s, prefix=prefix or None):
                for m in batch:
                    out.append((m["path"], m["size"], m["last_modified"].timestamp()))
            return sorted(out)
        except Exception as e:
            raise self._fail(e, "listing") from None

    def stamps(self, prefix: str) -> dict[str, tuple[int, float, str]]:
        """As :meth:`Transport.stamps`, with the object's ETag (S3's
        LastModified has whole seconds: a rewrite in the same second keeps it)."""
        try:
            return {m["path"]: (m["size"], m["last_modified"].timestamp(), m.get("e_tag") or "")
                    for batch in self._ob.list(self.s, prefix=prefix or None) for m in batch}
        except Exception as e:
            raise self._fail(e, "listing") from None

    def check(self) -> None:
        try:
            self.read("mem-remote")
        except NotFound:
            pass

    def versioning(self) -> str | None:
        """The bucket's versioning status (``Enabled``, ``Suspended``) through
        boto3's GetBucketVersioning when boto3 is installed (obstore has no
        such call); None when versioning was never enabled or it cannot tell."""
        try:
            import boto3  # optional: only to ask this one question
        except ImportError:
            return None
        try:
            kw = {"region_name": self._cfg.get("region")}
            if self.endpoint:
                kw["endpoint_url"] = self.endpoint
            if self._cfg.get("access_key_id"):
                kw.update(aws_access_key_id=self._cfg["access_key_id"],
                          aws_secret_access_key=self._cfg.get("secret_access_key"),
                          aws_session_token=self._cfg.get("token"))
            r = boto3.client("s3", **kw).get_bucket_versioning(Bucket=self.bucket)
            return r.get("Status") or None
        except Exception:
            return None


def open_transport(url: str, *, endpoint: str | None = None, env: Mapping[str, str] | None = None,
                   create: bool = False) -> Transport:
    """The transport for a remote URL (see :func:`parse_url`).  ``create``
    makes a missing folder (never a bucket).  Raises InvalidInput,
    RemoteUnavailable."""
    u = parse_url(url)
    if u.kind == "s3":
        return S3Transport(u, endpoint=endpoint, env=env)
    return FolderTransport(u.path, create=create)
