"""The Kubernetes images' sizes (packaging/images/build-images.py's OCI archives), for RESULTS.md:
`python3 bench/image_sizes.py build/images` measures each image (its archive, each layer
compressed as a registry stores it and pulls it, and its unpacked root filesystem), writes
bench/images.json and rewrites RESULTS.md's "Image sizes" section; report.py keeps that section
when it writes RESULTS.md again. An image the store does not hold (`--only` built the others)
keeps its row of bench/images.json."""

import gzip
import json
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = ("kode-gopher-sandbox", "kode-gopherd", "sandbox-router")
HEADING = "## Image sizes"


def measure(store, name):
    archive = os.path.join(store, f"{name}.oci.tar")
    with tarfile.open(archive) as tar:
        def blob(digest):
            return json.load(tar.extractfile("./blobs/sha256/" + digest.split(":", 1)[1]))
        index = json.load(tar.extractfile("./index.json"))
        manifest = blob(index["manifests"][0]["digest"])
        config = blob(manifest["config"]["digest"])
        layers = [layer["size"] for layer in manifest["layers"]]
        unpacked = 0
        for layer in manifest["layers"]:
            with gzip.open(tar.extractfile("./blobs/sha256/" + layer["digest"].split(":", 1)[1])) as g:
                with tarfile.open(fileobj=g, mode="r|") as inner:
                    unpacked += sum(m.size for m in inner if m.isfile())
    return {"image": name, "digest": index["manifests"][0]["digest"],
            "archive_bytes": os.path.getsize(archive), "layers_compressed_bytes": layers,
            "unpacked_file_bytes": unpacked, "history": [h.get("created_by", "") for h in config.get("history", [])]}


def section(results=None):
    if results is None:
        path = os.path.join(HERE, "images.json")
        if not os.path.exists(path):
            return ""
        with open(path) as f:
            results = json.load(f)
    mb = lambda n: f"{n / 1e6:.0f}"  # noqa: E731
    lines = [HEADING, "",
             "Written by `bench/image_sizes.py build/images` from the OCI archives "
             "`packaging/images/build-images.py` made (docs/kubernetes.md). MB = 10^6 bytes; "
             "compressed = what a registry stores and a node pulls.", "",
             "| image | compressed, all layers | Debian layer | kode-gopher layer | unpacked files | digest |",
             "|---|---|---|---|---|---|"]
    for r in results:
        base, own = (r["layers_compressed_bytes"] + [0, 0])[:2]
        lines.append(f"| {r['image']} | {mb(sum(r['layers_compressed_bytes']))} | {mb(base)} | "
                     f"{mb(own)} | {mb(r['unpacked_file_bytes'])} | `{r['digest'][:19]}…` |")
    lines += ["", "The sandbox image carries the Go toolchain and the prewarmed build cache of the "
              "curated lockfile (the standard library and the Google Cloud and Kubernetes "
              "packages) and the lockfile's extracted modules; the module zips are left out "
              "(about 190 MB: builds read the extracted modules, and nothing downloads with "
              "GOPROXY=off), and so are Debian's documentation, manual pages and translations. "
              "The team daemon's image (kode-gopherd) carries the daemon, the CLI, the plugins, "
              "the sandbox parts `meson install` puts beside them and the same Go toolchain (the "
              "daemon reads its version and the lockfile to check each sandbox's image), not the "
              "caches.", ""]
    return "\n".join(lines)


def main():
    kept = {}
    if os.path.exists(os.path.join(HERE, "images.json")):
        with open(os.path.join(HERE, "images.json")) as f:
            kept = {r["image"]: r for r in json.load(f)}
    results = []
    for name in IMAGES:
        if os.path.exists(os.path.join(sys.argv[1], f"{name}.oci.tar")):
            results.append(measure(sys.argv[1], name))
        elif name in kept:
            print(f"image_sizes: no {name} in {sys.argv[1]}: its row is kept", file=sys.stderr)
            results.append(kept[name])
    with open(os.path.join(HERE, "images.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    path = os.path.join(HERE, "RESULTS.md")
    with open(path) as f:
        text = f.read()
    if HEADING in text:
        start = text.index(HEADING)
        end = text.find("\n## ", start + 1)
        text = text[:start] + section(results) + (text[end + 1:] if end != -1 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section(results)
    with open(path, "w") as f:
        f.write(text)
    print(section(results))


if __name__ == "__main__":
    main()
