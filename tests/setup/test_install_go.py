#!/usr/bin/env python3
"""Setup's Go step (scripts/go-env.sh, scripts/go_toolchain.py) against the real Go module proxy:
it installs the pinned toolchain where no Go is found, verified against the pinned hash and
sum.golang.org, runs it as the sandbox user would, does nothing the second time, and refuses a
tampered zip, a pin that disagrees with sum.golang.org and tampered checksum database answers.

Environment (tests/setup/meson.build): KG_SOURCE_ROOT, KG_BUILD_GO (the go the build uses),
KG_GO_DOWNLOAD_DIR (keeps the ~70 MB toolchain zip between runs). Needs the network.
"""

import base64
import glob
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import urllib.request
import zipfile

SOURCE_ROOT = os.environ["KG_SOURCE_ROOT"]
SCRIPTS = os.path.join(SOURCE_ROOT, "scripts")
DOWNLOAD_DIR = os.environ["KG_GO_DOWNLOAD_DIR"]
sys.path.insert(0, SCRIPTS)
import go_module_checksum  # noqa: E402
import go_toolchain  # noqa: E402

PINNED = go_toolchain.PINNED_GO
PROXY = "https://proxy.golang.org"
SUMDB = f"{PROXY}/sumdb/sum.golang.org"
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"  # a fresh Debian's: no Go (/usr/local/go is hidden)


def fetch(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def world_traversable_tempdir():
    directory = tempfile.mkdtemp(prefix="kg-setup-test-")
    os.chmod(directory, 0o755)  # the sandbox user (uid 65534) must reach the toolchain inside
    return directory


def run_go_step(prefix, path=SYSTEM_PATH, hide_usr_local_go=True, extra_env=None):
    """Sources scripts/go-env.sh as setup.sh does and reports KG_GO_ROOT, `command -v go` and
    `go version`. With hide_usr_local_go it runs in a mount namespace where /usr/local/go is an
    empty directory, as on a fresh machine."""
    script = ('set -euo pipefail; . "$1"; echo "KG_GO_ROOT=$KG_GO_ROOT"; '
              'echo "go=$(command -v go)"; go version')
    command = ["bash", "-c", script, "go-step", os.path.join(SCRIPTS, "go-env.sh")]
    if hide_usr_local_go and os.path.isdir("/usr/local/go"):
        command = ["bwrap", "--dev-bind", "/", "/", "--tmpfs", "/usr/local/go"] + command
    env = dict(os.environ, PATH=path, KG_GO_PREFIX=prefix, KG_GO_DOWNLOAD_DIR=DOWNLOAD_DIR)
    env.pop("GOTOOLCHAIN", None)
    env.update(extra_env or {})
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600,
                          check=False)


def run_installer(prefix, download_dir, script_dir=SCRIPTS, extra_env=None):
    """Runs go_toolchain.py with no Go on PATH."""
    env = dict(os.environ, PATH=SYSTEM_PATH, KG_GO_PREFIX=prefix)
    env.pop("KG_GO_DOWNLOAD_DIR", None)
    if download_dir:
        env["KG_GO_DOWNLOAD_DIR"] = download_dir
    env.update(extra_env or {})
    return subprocess.run([sys.executable, os.path.join(script_dir, "go_toolchain.py")], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def cached_zip():
    zips = glob.glob(os.path.join(DOWNLOAD_DIR, f"toolchain@v0.0.1-{PINNED}.*.zip"))
    assert len(zips) == 1, f"expected the pinned toolchain's zip in {DOWNLOAD_DIR}: {zips}"
    return zips[0]


class InstallPinnedGo(unittest.TestCase):
    """One real install, shared by the checks on it."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = world_traversable_tempdir()
        cls.prefix = os.path.join(cls.scratch, "prefix")
        cls.first = run_go_step(cls.prefix)
        cls.root = os.path.join(cls.prefix, PINNED)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def test_without_go_on_path_it_installs_and_uses_the_pinned_go(self):
        result = self.first
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"KG_GO_ROOT={self.root}\n", result.stdout)
        self.assertIn(f"go={self.root}/bin/go\n", result.stdout)
        self.assertIn(f"go version {PINNED} linux/", result.stdout)
        self.assertIn(f"installed {PINNED} in {self.root} (verified h1:", result.stderr)
        self.assertEqual(os.listdir(self.prefix), [PINNED], "no staging or download left behind")

    def test_the_toolchain_is_world_readable_and_its_commands_executable(self):
        def mode(relative):
            return stat.S_IMODE(os.stat(os.path.join(self.root, relative)).st_mode)
        self.assertEqual(mode("bin/go"), 0o755)
        self.assertEqual(mode("bin/gofmt"), 0o755)
        tools = glob.glob(os.path.join(self.root, "pkg", "tool", "*", "compile"))
        self.assertEqual(len(tools), 1)
        self.assertEqual(stat.S_IMODE(os.stat(tools[0]).st_mode), 0o755)
        self.assertEqual(mode("src/fmt/print.go"), 0o644)
        self.assertEqual(mode("src/fmt"), 0o755)
        self.assertEqual(mode("."), 0o755)

    @unittest.skipUnless(os.geteuid() == 0, "only a root daemon maps sandboxes to uid 65534")
    def test_the_sandbox_user_can_run_it(self):
        result = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             os.path.join(self.root, "bin", "go"), "version"],
            env={"PATH": SYSTEM_PATH, "HOME": "/nonexistent", "GOTOOLCHAIN": "local"},
            capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"go version {PINNED}", result.stdout)

    def test_a_second_run_does_nothing(self):
        # An unreachable proxy proves nothing is fetched.
        result = run_go_step(self.prefix, extra_env={"GOPROXY": "http://127.0.0.1:9"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"KG_GO_ROOT={self.root}\n", result.stdout)
        self.assertEqual(result.stderr, "")

    def test_an_old_go_on_path_gives_way_to_the_pinned_one(self):
        fake_bin = os.path.join(self.scratch, "old-go", "bin")
        os.makedirs(fake_bin, exist_ok=True)
        with open(os.path.join(fake_bin, "go"), "w") as fake:
            fake.write('#!/bin/sh\nprintf "go1.19.8\\n/usr/lib/go-1.19\\n"\n')
        os.chmod(os.path.join(fake_bin, "go"), 0o755)
        result = run_go_step(self.prefix, path=f"{fake_bin}:{SYSTEM_PATH}",
                             extra_env={"GOPROXY": "http://127.0.0.1:9"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"go={self.root}/bin/go\n", result.stdout)
        self.assertIn(f"{fake_bin}/go is go1.19.8, older than Go 1.24; using the pinned {PINNED}",
                      result.stderr)

    def test_a_new_enough_go_on_path_wins(self):
        build_go = os.environ["KG_BUILD_GO"]
        build_root = subprocess.run([build_go, "env", "GOROOT"], capture_output=True, text=True,
                                    check=True, env=dict(os.environ, GOTOOLCHAIN="local")).stdout
        result = run_go_step(self.prefix, path=f"{os.path.dirname(build_go)}:{SYSTEM_PATH}",
                             hide_usr_local_go=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"KG_GO_ROOT={build_root.strip()}\n", result.stdout)


class RefusesWhatDoesNotVerify(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="kg-setup-test-")
        self.prefix = os.path.join(self.scratch, "prefix")

    def tearDown(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def assert_nothing_installed(self):
        self.assertEqual(os.listdir(self.prefix) if os.path.isdir(self.prefix) else [], [])

    def test_a_tampered_zip_is_refused_and_deleted(self):
        downloads = os.path.join(self.scratch, "downloads")
        os.makedirs(downloads)
        tampered = os.path.join(downloads, os.path.basename(cached_zip()))
        shutil.copyfile(cached_zip(), tampered)
        with zipfile.ZipFile(tampered, "a") as archive:
            top = "/".join(archive.namelist()[0].split("/")[:2])  # golang.org/toolchain@v...
            archive.writestr(f"{top}/bin/extra", "#!/bin/sh\necho tampered\n")
        result = run_installer(self.prefix, downloads)
        self.assertEqual(result.returncode, 1)
        self.assertIn("checksum mismatch", result.stderr)
        self.assertIn("Refused it and deleted the download; nothing was installed", result.stderr)
        self.assertFalse(os.path.exists(tampered))
        self.assert_nothing_installed()

    def test_a_corrupt_zip_is_refused_and_deleted(self):
        downloads = os.path.join(self.scratch, "downloads")
        os.makedirs(downloads)
        corrupt = os.path.join(downloads, os.path.basename(cached_zip()))
        with open(corrupt, "wb") as out:
            out.write(b"PK\x03\x04 not a zip")
        result = run_installer(self.prefix, downloads)
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"checksum mismatch: .* has unreadable \(")
        self.assertFalse(os.path.exists(corrupt))
        self.assert_nothing_installed()

    def test_a_pin_that_disagrees_with_sum_golang_org_is_refused(self):
        scripts = os.path.join(self.scratch, "scripts")
        shutil.copytree(SCRIPTS, scripts)
        path = os.path.join(scripts, "go_toolchain.py")
        with open(path) as f:
            text = f.read()
        wrong = "h1:" + base64.b64encode(b"\x00" * 32).decode()
        text, replaced = re.subn(r'(": ")h1:[A-Za-z0-9+/=]+"', rf'\g<1>{wrong}"', text)
        self.assertGreater(replaced, 0)
        with open(path, "w") as f:
            f.write(text)
        result = run_installer(self.prefix, None, script_dir=scripts)
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"sum\.golang\.org lists golang\.org/toolchain@\S+ as h1:"
                         rf"\S+, but scripts/go_toolchain\.py pins {re.escape(wrong)}; not installing")
        self.assert_nothing_installed()

    def test_an_unreachable_proxy_is_named_with_what_to_do(self):
        result = run_installer(self.prefix, None, extra_env={"GOPROXY": "http://127.0.0.1:9,direct"})
        self.assertEqual(result.returncode, 1)
        self.assertIn("cannot download http://127.0.0.1:9/sumdb/sum.golang.org/lookup/", result.stderr)
        self.assertIn("set GOPROXY to a Go module proxy that can be reached", result.stderr)
        self.assert_nothing_installed()


class ChecksumsAsGoComputesThem(unittest.TestCase):
    def test_zip_h1_matches_the_lockfile_go_sum(self):
        module, version = "github.com/felixge/httpsnoop", "v1.1.0"
        with open(os.path.join(SOURCE_ROOT, "sandbox", "lockfile", "go.sum")) as f:
            line = next(l for l in f if l.startswith(f"{module} {version} h1:"))
        with tempfile.NamedTemporaryFile(suffix=".zip") as zip_file:
            zip_file.write(fetch(f"{PROXY}/{module}/@v/{version}.zip"))
            zip_file.flush()
            self.assertEqual(go_module_checksum.zip_h1(zip_file.name), line.split()[2])
        record = go_module_checksum.verify_lookup(
            fetch(f"{SUMDB}/lookup/{module}@{version}"), lambda tile: fetch(f"{SUMDB}/{tile}"))
        self.assertEqual(go_module_checksum.h1_from_record(record, module, version), line.split()[2])

    def test_a_tampered_lookup_answer_does_not_verify(self):
        module, version = "golang.org/toolchain", f"v0.0.1-{PINNED}.linux-amd64"
        answer = fetch(f"{SUMDB}/lookup/{module}@{version}")
        tiles = {}

        def read_tile(tile):
            if tile not in tiles:
                tiles[tile] = fetch(f"{SUMDB}/{tile}")
            return tiles[tile]

        record = go_module_checksum.verify_lookup(answer, read_tile)
        self.assertEqual(go_module_checksum.h1_from_record(record, module, version),
                         go_toolchain.PINNED_H1["linux-amd64"])

        h1 = go_toolchain.PINNED_H1["linux-amd64"]
        forged = answer.replace(h1.encode(), b"h1:" + base64.b64encode(b"\x01" * 32))
        with self.assertRaisesRegex(go_module_checksum.ChecksumError,
                                    "inclusion proof does not reach the signed root"):
            go_module_checksum.verify_lookup(forged, read_tile)

        signature_at = answer.index("\u2014 sum.golang.org ".encode()) + 30
        flipped = b"A" if answer[signature_at:signature_at + 1] != b"A" else b"B"
        resigned = answer[:signature_at] + flipped + answer[signature_at + 1:]
        with self.assertRaisesRegex(go_module_checksum.ChecksumError, "no valid signature"):
            go_module_checksum.verify_lookup(resigned, read_tile)

        def tampered_tile(tile):
            data = bytearray(read_tile(tile))
            for offset in range(0, len(data), 32):  # every hash in it
                data[offset] ^= 1
            return bytes(data)
        with self.assertRaisesRegex(go_module_checksum.ChecksumError, "inclusion proof"):
            go_module_checksum.verify_lookup(answer, tampered_tile)

        other_key = "sum.golang.org+" + "{:08x}".format(0) + "+" + base64.b64encode(
            b"\x01" + b"\x02" * 32).decode()
        with self.assertRaisesRegex(go_module_checksum.ChecksumError, "key hash"):
            go_module_checksum.verify_lookup(answer, read_tile, other_key)


if __name__ == "__main__":
    unittest.main(verbosity=2)
