#!/usr/bin/env python3
"""Push, clone and an incremental push (one new session) against a folder
remote or moto's S3 server on loopback.

    python bench/remote.py --sessions 300            # the brief's corpus (144 MB of transcripts)
    python bench/remote.py --sessions 30 --s3        # smaller, through S3 (moto on 127.0.0.1)

Generates the corpus with bench/gen_corpus.py (seed 1) unless --corpus is
given, imports it into store A (not timed here: see "Storage engine"), then
times ``push`` (everything), ``clone`` into store B, and, after importing one
more generated session into A, the incremental ``push``.  Prints one JSON
document with seconds, objects and bytes sent/received.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=300)
    ap.add_argument("--corpus", default=None, help="an existing gen_corpus output")
    ap.add_argument("--s3", action="store_true", help="moto's S3 server on loopback instead of a folder")
    ap.add_argument("--no-encrypt", action="store_true")
    args = ap.parse_args()
    from objstore import open_store, add_remote, clone, export_sync_key, import_transcripts, push
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        corpus = Path(args.corpus) if args.corpus else d / "corpus"
        if not args.corpus:
            turns = round(18099 * args.sessions / 300)
            subprocess.run([sys.executable, str(REPO / "bench" / "gen_corpus.py"), str(corpus), "--sessions",
                            str(args.sessions), "--turns", str(turns), "--seed", "1"], check=True,
                           stdout=subprocess.DEVNULL)
        extra = d / "extra"
        subprocess.run([sys.executable, str(REPO / "bench" / "gen_corpus.py"), str(extra), "--sessions", "1",
                        "--turns", "60", "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
        env, url, endpoint, srv = {}, str(d / "remote"), None, None
        if args.s3:
            from moto.server import ThreadedMotoServer
            import boto3
            srv = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
            srv.start()
            host, port = srv.get_host_and_port()
            endpoint = f"http://{host}:{port}"
            env = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1"}
            boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="bench", aws_secret_access_key="bench",
                         region_name="us-east-1").create_bucket(Bucket="mem-bench")
            url = "s3://mem-bench/mem"
        a = open_store(d / "a", create=True)
        t = time.perf_counter()
        imp = import_transcripts(a, "claude-code", [corpus])
        t_import = time.perf_counter() - t
        spec = add_remote(a, "origin", url, endpoint=endpoint, encrypt=not args.no_encrypt)
        t = time.perf_counter()
        r1 = push(a, spec, env=env)
        t_push = time.perf_counter() - t
        t = time.perf_counter()
        b, r2 = clone(d / "b", url, endpoint=endpoint, key=None if args.no_encrypt else export_sync_key(a),
                      encrypt=not args.no_encrypt, env=env)
        t_clone = time.perf_counter() - t
        import_transcripts(a, "claude-code", [extra])
        t = time.perf_counter()
        r3 = push(a, spec, env=env)
        t_inc = time.perf_counter() - t
        store_bytes = sum(f.stat().st_size for f in (d / "a").rglob("*") if f.is_file())
        print(json.dumps({
            "remote": "s3 (moto, loopback)" if args.s3 else "folder", "encrypted": not args.no_encrypt,
            "sessions": args.sessions, "turns": imp.turns_added, "import_s": round(t_import, 2),
            "store_bytes": store_bytes,
            "push": {"s": round(t_push, 2), "objects": r1.objects_sent, "bytes": r1.bytes_sent},
            "clone": {"s": round(t_clone, 2), "objects": r2.objects_received, "bytes": r2.bytes_received},
            "incremental_push": {"s": round(t_inc, 2), "objects": r3.objects_sent, "bytes": r3.bytes_sent,
                                 "bytes_received": r3.bytes_received},
        }, indent=1))
        a.close()
        b.close()
        if srv:
            srv.stop()


if __name__ == "__main__":
    main()
