#!/usr/bin/env python3
"""Fails when any C++ file parses JSON anywhere but lib/json/json_reader.cpp.

Every byte the daemon gets from outside (HTTP bodies, sandbox answers and events, upstream OAuth
and OIDC replies, Kubernetes API replies, credential files) is read by lib/json's bounded,
iterative reader (docs/security.md, "JSON from outside"). A second parser would bring back the
class of bug that crashed the daemon three times: a recursive parse of hostile nesting. So a
RapidJSON parse call, a RapidJSON Reader, or Poco's JSON parser (also behind Poco::JWT's verify)
anywhere else fails this test. Tests may use Poco::JWT to *sign* tokens for their peers.

Usage: check_json_parsers.py SOURCE_ROOT
"""
import pathlib
import re
import sys

THE_READER = pathlib.PurePosixPath("lib/json/json_reader.cpp")
SOURCE_SUFFIXES = {".cpp", ".cc", ".hpp", ".h"}
SKIPPED_DIRS = {"build", ".local", ".git", "node_modules", "subprojects"}

# What counts as parsing JSON, with why it is named.
FORBIDDEN = [
    # (Go's url.Parse and time.Parse appear in the Go programs tests embed as C++ strings.)
    (re.compile(r"(?<!\burl)(?<!\btime)(\.|->)\s*Parse(Insitu|Stream)?\s*[<(]"),
     "a RapidJSON Document parse"),
    (re.compile(r"\bParseInsitu\b|\bParseStream\b"), "a RapidJSON in-place or stream parse"),
    (re.compile(r"\brapidjson::(Generic)?Reader\b|\bGenericReader\s*<"), "a RapidJSON Reader"),
    (re.compile(r"\brapidjson/reader\.h\b"), "RapidJSON's reader header"),
    (re.compile(r"\bPoco::JSON::Parser\b|Poco/JSON/Parser\.h"), "Poco's recursive JSON parser"),
    (re.compile(r"\bJSON::Parser\b"), "Poco's recursive JSON parser"),
]
# Product code may not verify (and so parse) JWTs with Poco; tests sign tokens with it.
FORBIDDEN_OUTSIDE_TESTS = [
    (re.compile(r"\b(try)?[vV]erify\s*\("), "Poco::JWT's verify, which parses with Poco::JSON",
     re.compile(r"Poco/JWT/")),
]

# Each pattern must catch what it is for: a check that rots silently cannot fail.
SELF_CHECK = [
    'document.Parse(text.c_str());',
    'doc.Parse<rapidjson::kParseIterativeFlag>(s);',
    'd->Parse(text);',
    'document.ParseInsitu(buffer);',
    'rapidjson::Reader reader;',
    'Poco::JSON::Parser parser;',
    '#include <Poco/JSON/Parser.h>',
]
SELF_ALLOWED = [
    'Poco::Net::IPAddress::tryParse(host, ip);',
    'Poco::DateTimeParser::tryParse(format, text, parsed, tz);',
    'kg::json::read_json(text, kg::json::kRequestLimits);',
    'proxy, _ := url.Parse(os.Getenv("HTTPS_PROXY"))',
]


def hits(line):
    return [why for pattern, why in FORBIDDEN if pattern.search(line)]


def self_check():
    missed = [s for s in SELF_CHECK if not hits(s)]
    flagged = [s for s in SELF_ALLOWED if hits(s)]
    if missed or flagged:
        sys.exit(f"check_json_parsers.py is broken: misses {missed}, flags {flagged}")


def sources(root):
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if relative.parts and relative.parts[0] in SKIPPED_DIRS:
            continue
        if path.suffix in SOURCE_SUFFIXES and path.is_file():
            yield path, pathlib.PurePosixPath(relative.as_posix())


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    self_check()
    problems = []
    checked = 0
    for path, relative in sources(root):
        checked += 1
        if relative == THE_READER:
            continue
        text = path.read_text(errors="replace")
        in_tests = relative.parts[0] in ("tests", "fuzz")
        for number, line in enumerate(text.splitlines(), 1):
            code = line.split("//", 1)[0]
            for why in hits(code):
                problems.append(f"{relative}:{number}: {why}: {line.strip()}")
            if in_tests:
                continue
            for pattern, why, only_with in FORBIDDEN_OUTSIDE_TESTS:
                if only_with.search(text) and pattern.search(code):
                    problems.append(f"{relative}:{number}: {why}: {line.strip()}")
    if checked < 50:
        sys.exit(f"only {checked} C++ files under {root}: is that the source root?")
    if problems:
        print("JSON parsed outside lib/json/json_reader.cpp. Read it with kg::json::read_json "
              "(lib/json/json_reader.hpp) and one of its limit presets instead:")
        print("\n".join(problems))
        sys.exit(1)
    print(f"{checked} C++ files: JSON is parsed only in {THE_READER}")


if __name__ == "__main__":
    main()
