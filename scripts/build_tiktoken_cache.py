"""Rebuild tiktoken's BPE files offline from the npm package js-tiktoken.

tiktoken downloads `<name>.tiktoken` from a blob URL at first use, which fails without network.
js-tiktoken (MIT) ships the same ranks in a compressed form; this script decodes them, checks the
result against the sha256 tiktoken itself expects, and writes it where `tiktoken.load.read_file_cached`
looks: `$TIKTOKEN_CACHE_DIR/<sha1 of the blob URL>`.

Usage: build_tiktoken_cache.py --package js-tiktoken-1.0.21.tgz --out .cache/tiktoken
(`--package` may be the npm tarball or an unpacked package folder.)
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
import tarfile
from pathlib import Path

ENCODINGS = ("o200k_base", "cl100k_base")


class _Captured(Exception):
    def __init__(self, url: str, expected_hash: str | None) -> None:
        super().__init__(url)
        self.url = url
        self.expected_hash = expected_hash


def tiktoken_source(encoding: str) -> tuple[str, str]:
    """(blob URL, expected sha256) as tiktoken's own constructor passes them; nothing is fetched."""
    from tiktoken_ext import openai_public

    def capture(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        raise _Captured(url, expected_hash)

    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = capture  # the constructor calls it first, before anything else
    try:
        getattr(openai_public, encoding)()
    except _Captured as got:
        if not got.expected_hash:
            raise SystemExit(f"tiktoken gives no expected hash for {encoding}") from None
        return got.url, got.expected_hash
    finally:
        openai_public.load_tiktoken_bpe = original
    raise SystemExit(f"tiktoken's {encoding} constructor did not load a BPE file")


def read_rank_module(package: Path, encoding: str) -> str:
    """Text of js-tiktoken's dist/ranks/<encoding>.js, from a tarball or an unpacked folder."""
    member = f"dist/ranks/{encoding}.js"
    if package.is_dir():
        return (package / member).read_text(encoding="utf-8")
    with tarfile.open(package) as tar:
        handle = tar.extractfile(f"package/{member}")
        if handle is None:
            raise SystemExit(f"{member} not found in {package}")
        return handle.read().decode("utf-8")


def decode_ranks(module_text: str) -> dict[bytes, int]:
    """js-tiktoken's format: `export default {...,"bpe_ranks": "<lines>"}`; each line is
    `<tag> <first rank> <b64 token> <b64 token> ...`, ranks consecutive from the first."""
    body = module_text.strip().removeprefix("export default").strip().removesuffix(";")
    compressed: str = json.loads(body)["bpe_ranks"]
    ranks: dict[bytes, int] = {}
    for line in compressed.split("\n"):
        if not line:
            continue
        _tag, offset, *tokens = line.split(" ")
        start = int(offset)
        for i, token in enumerate(tokens):
            ranks[base64.b64decode(token)] = start + i
    return ranks


def to_tiktoken_file(ranks: dict[bytes, int]) -> bytes:
    ordered = sorted(ranks.items(), key=lambda item: item[1])
    return b"".join(base64.b64encode(token) + b" %d\n" % rank for token, rank in ordered)


def build(package: Path, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for encoding in ENCODINGS:
        url, expected = tiktoken_source(encoding)
        target = out / hashlib.sha1(url.encode()).hexdigest()
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
            print(f"  tiktoken {encoding}: cached")
            continue
        blob = to_tiktoken_file(decode_ranks(read_rank_module(package, encoding)))
        actual = hashlib.sha256(blob).hexdigest()
        if actual != expected:
            print(f"  tiktoken {encoding}: sha256 {actual} != expected {expected}", file=sys.stderr)
            failed += 1
            continue
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(blob)
        tmp.replace(target)  # atomic: a reader never sees half a file
        print(f"  tiktoken {encoding}: built, sha256 ok")
    return 1 if failed else 0


def cache_complete(out: Path) -> bool:
    """True when every encoding's file is present with the right hash (lets setup skip npm)."""
    for encoding in ENCODINGS:
        url, expected = tiktoken_source(encoding)
        target = out / hashlib.sha1(url.encode()).hexdigest()
        if not target.exists() or hashlib.sha256(target.read_bytes()).hexdigest() != expected:
            return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", type=Path, help="js-tiktoken npm tarball or unpacked folder")
    parser.add_argument("--out", type=Path, required=True, help="cache dir (TIKTOKEN_CACHE_DIR)")
    parser.add_argument("--check", action="store_true", help="exit 0 if the cache is complete, else 1")
    args = parser.parse_args()
    if args.check:
        return 0 if cache_complete(args.out) else 1
    if args.package is None:
        parser.error("--package is required unless --check")
    return build(args.package, args.out)


if __name__ == "__main__":
    sys.exit(main())
