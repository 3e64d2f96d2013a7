"""Checksums of Go module zips, as the go command checks them: the `h1:` hash of a module zip, and
the hash the Go checksum database (sum.golang.org) publishes for a module version, read through a
module proxy and verified end to end (the signed tree head, then the record's inclusion in that
tree), so neither the proxy nor the network can substitute a hash.

Standard library only, plus the `openssl` command for the Ed25519 signature (Python has no
Ed25519). Used by go_toolchain.py (setup's Go step) and tests/setup/.
"""

import base64
import hashlib
import os
import subprocess
import tempfile
import zipfile

# The public key of sum.golang.org, built into the go command (cmd/go/internal/modfetch).
SUM_GOLANG_ORG_KEY = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"

TILE_HEIGHT = 8  # sum.golang.org serves tiles of 2**8 hashes
HASH_SIZE = 32


class ChecksumError(Exception):
    """A hash that does not match, or a checksum database answer that does not verify."""


def zip_h1(zip_path):
    """The `h1:` hash of a module zip (golang.org/x/mod/sumdb/dirhash.HashZip): SHA-256 over the
    lines "<sha256 hex>  <name>\\n" of every file, sorted by name, in base64."""
    summary = hashlib.sha256()
    with zipfile.ZipFile(zip_path) as archive:
        for name in sorted(archive.namelist()):
            if "\n" in name:
                raise ChecksumError(f"{zip_path}: a file name holds a newline: {name!r}")
            digest = hashlib.sha256()
            with archive.open(name) as member:
                for chunk in iter(lambda: member.read(1 << 20), b""):
                    digest.update(chunk)
            summary.update(f"{digest.hexdigest()}  {name}\n".encode())
    return "h1:" + base64.b64encode(summary.digest()).decode()


# --- signed notes (golang.org/x/mod/sumdb/note) ---

def _ed25519_verify(public_key, message, signature):
    """True when signature is a valid Ed25519 signature of message; asks `openssl pkeyutl`."""
    der = bytes.fromhex("302a300506032b6570032100") + public_key  # SubjectPublicKeyInfo, Ed25519
    pem = ("-----BEGIN PUBLIC KEY-----\n" + base64.b64encode(der).decode() +
           "\n-----END PUBLIC KEY-----\n")
    with tempfile.TemporaryDirectory(prefix="kg-sumdb-") as scratch:
        files = {"key.pem": pem.encode(), "msg": message, "sig": signature}
        for name, data in files.items():
            with open(os.path.join(scratch, name), "wb") as out:
                out.write(data)
        try:
            result = subprocess.run(
                ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "key.pem", "-rawin",
                 "-in", "msg", "-sigfile", "sig"],
                cwd=scratch, capture_output=True, check=False)
        except FileNotFoundError:
            raise ChecksumError("the `openssl` command is needed to verify sum.golang.org's "
                                "signature; install it (Debian: apt-get install openssl)") from None
    return result.returncode == 0


def verify_note(note, verifier_key=SUM_GOLANG_ORG_KEY):
    """Checks that note (bytes) carries a valid signature by verifier_key and returns the signed
    text. Raises ChecksumError otherwise."""
    name, key_hash, key_data = verifier_key.split("+", 2)
    try:
        key_data = base64.b64decode(key_data, validate=True)
    except ValueError:
        raise ChecksumError(f"not a verifier key: {verifier_key}") from None
    if len(key_data) != 33 or key_data[0] != 1:
        raise ChecksumError(f"not an Ed25519 verifier key: {verifier_key}")
    expected_hash = hashlib.sha256(name.encode() + b"\n" + key_data).digest()[:4]
    if expected_hash.hex() != key_hash:
        raise ChecksumError(f"verifier key hash does not match its key: {verifier_key}")
    split = note.rfind(b"\n\n")
    if split < 0:
        raise ChecksumError("the checksum database's tree note carries no signature")
    text, signatures = note[:split + 1], note[split + 2:]
    for line in signatures.decode("utf-8", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != "\u2014" or parts[1] != name:
            continue
        try:
            blob = base64.b64decode(parts[2], validate=True)
        except ValueError:
            continue
        if len(blob) == 4 + 64 and blob[:4] == expected_hash and \
                _ed25519_verify(key_data[1:], text, blob[4:]):
            return text
    raise ChecksumError(f"the checksum database's tree note has no valid signature by {name}")


# --- the transparency log (golang.org/x/mod/sumdb/tlog) ---

def _record_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def _node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def tile_path(level, index, width):
    """The path of a tile (tlog.Tile.Path): tile/8/<level>/x123/456[.p/<width>]."""
    digits = f"{index % 1000:03d}"
    while index >= 1000:
        index //= 1000
        digits = f"x{index % 1000:03d}/{digits}"
    partial = "" if width == 1 << TILE_HEIGHT else f".p/{width}"
    return f"tile/{TILE_HEIGHT}/{level}/{digits}{partial}"


class _StoredHashes:
    """The tree's stored hashes, read from tiles fetched on demand. Nothing read here is trusted:
    every hash only feeds the root that is compared with the signed one."""

    def __init__(self, tree_size, fetch_tile):
        self.tree_size = tree_size
        self.fetch_tile = fetch_tile
        self.tiles = {}

    def _tile(self, tile_level, tile_index):
        key = (tile_level, tile_index)
        if key not in self.tiles:
            stored_at_level = self.tree_size >> (TILE_HEIGHT * tile_level)
            width = min(1 << TILE_HEIGHT, stored_at_level - (tile_index << TILE_HEIGHT))
            data = self.fetch_tile(tile_path(tile_level, tile_index, width))
            if len(data) < width * HASH_SIZE:
                raise ChecksumError(f"tile {tile_path(tile_level, tile_index, width)} is short: "
                                    f"{len(data)} bytes")
            self.tiles[key] = data[:width * HASH_SIZE]
        return self.tiles[key]

    def node(self, level, index):
        """The hash of the complete subtree of 2**level leaves starting at leaf index << level."""
        tile_level, within = divmod(level, TILE_HEIGHT)
        first = index << within  # at level tile_level * TILE_HEIGHT
        tile = self._tile(tile_level, first >> TILE_HEIGHT)
        offset = first & ((1 << TILE_HEIGHT) - 1)
        hashes = [tile[(offset + i) * HASH_SIZE:(offset + i + 1) * HASH_SIZE]
                  for i in range(1 << within)]
        while len(hashes) > 1:
            hashes = [_node_hash(hashes[i], hashes[i + 1]) for i in range(0, len(hashes), 2)]
        return hashes[0]


def _root_through(stored, low, high, leaf_index, leaf_hash):
    """The Merkle tree hash (RFC 6962) of leaves [low, high), computed from leaf_hash upwards
    where the range holds leaf_index and from stored complete subtrees elsewhere."""
    size = high - low
    holds_leaf = low <= leaf_index < high
    if holds_leaf and size == 1:
        return leaf_hash
    if not holds_leaf and size & (size - 1) == 0:
        level = size.bit_length() - 1
        return stored.node(level, low >> level)
    split = 1 << ((size - 1).bit_length() - 1)  # the largest power of two below size
    return _node_hash(_root_through(stored, low, low + split, leaf_index, leaf_hash),
                      _root_through(stored, low + split, high, leaf_index, leaf_hash))


def verify_lookup(response, fetch_tile, verifier_key=SUM_GOLANG_ORG_KEY):
    """Verifies a checksum database lookup answer (bytes: record id, record text, blank line,
    signed tree note) and returns the record text, the go.sum lines it vouches for. fetch_tile
    gets a tile path (tile/8/...) and returns its bytes. Raises ChecksumError."""
    first_newline = response.find(b"\n")
    blank = response.find(b"\n\n", first_newline)
    if first_newline < 0 or blank < 0 or not response[:first_newline].isdigit():
        raise ChecksumError("malformed checksum database answer")
    record_id = int(response[:first_newline])
    record = response[first_newline + 1:blank + 1]
    tree = verify_note(response[blank + 2:], verifier_key).decode().split("\n")
    if len(tree) != 4 or tree[0] != "go.sum database tree" or not tree[1].isdigit():
        raise ChecksumError("malformed tree in the checksum database answer")
    tree_size, signed_root = int(tree[1]), base64.b64decode(tree[2])
    if record_id >= tree_size:
        raise ChecksumError(f"record {record_id} is not in the signed tree of {tree_size}")
    root = _root_through(_StoredHashes(tree_size, fetch_tile), 0, tree_size, record_id,
                         _record_hash(record))
    if root != signed_root:
        raise ChecksumError(f"record {record_id} is not in the tree sum.golang.org signed "
                            "(its inclusion proof does not reach the signed root)")
    return record.decode()


def h1_from_record(record, module, version):
    """The zip's h1 hash on the go.sum line "<module> <version> h1:..." of a verified record."""
    for line in record.splitlines():
        fields = line.split(" ")
        if len(fields) == 3 and fields[:2] == [module, version]:
            return fields[2]
    raise ChecksumError(f"the checksum database has no line for {module} {version}")
