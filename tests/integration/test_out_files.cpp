// Files out (docs/mcp.md, "Files out"; docs/daemon-api.md): what a program writes under /app/out
// comes back as the result's `files`, readable byte for byte through the daemon API while the
// session is open and through `kode-gopher exec --out`; links, oversized and huge sparse files are
// refused with a warning naming each.
#include <doctest/doctest.h>

#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;

namespace {

// Writes a CSV and a real PNG (and prints their sha256), a link to /etc/passwd, a 9 MiB file
// (over the 8 MiB per-file limit) and a 1 GiB sparse one (the largest [limits] file_size_bytes allows by default).
const char* kWriter = R"(package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
)

func main() {
	csv := []byte("city,count\nParis,3\nOslo,5\n")
	img := image.NewRGBA(image.Rect(0, 0, 16, 8))
	for x := 0; x < 16; x++ {
		img.Set(x, x%8, color.RGBA{uint8(x * 16), 80, 200, 255})
	}
	var pic bytes.Buffer
	if err := png.Encode(&pic, img); err != nil { panic(err) }
	must(os.WriteFile("/app/out/table.csv", csv, 0o644))
	must(os.MkdirAll("/app/out/plots", 0o755))
	must(os.WriteFile("/app/out/plots/chart.png", pic.Bytes(), 0o644))
	must(os.Symlink("/etc/passwd", "/app/out/passwd"))
	must(os.WriteFile("/app/out/big.bin", make([]byte, 9<<20), 0o644))
	f, err := os.Create("/app/out/sparse.bin")
	must(err)
	must(f.Truncate(1 << 30))
	f.Close()
	fmt.Printf("%x %x\n", sha256.Sum256(csv), sha256.Sum256(pic.Bytes()))
}

func must(err error) { if err != nil { panic(err) } }
)";

std::string sha256_hex(const std::string& bytes) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(bytes);
  return Poco::DigestEngine::digestToHex(sha.digest());
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

const rapidjson::Value* file_named(const rapidjson::Value& result, const std::string& name) {
  const auto files = result.FindMember("files");
  if (files == result.MemberEnd() || !files->value.IsArray()) return nullptr;
  for (const auto& file : files->value.GetArray()) {
    if (json_string(file, "name") == name) return &file;
  }
  return nullptr;
}

std::string all_warnings(const rapidjson::Value& result) {
  std::string text;
  const auto warnings = result.FindMember("warnings");
  if (warnings == result.MemberEnd()) return text;
  for (const auto& warning : warnings->value.GetArray()) text += std::string(warning.GetString()) + "\n";
  return text;
}

}  // namespace

TEST_CASE("files under /app/out come back, byte for byte, and links and huge files are refused") {
  DaemonFixture daemon;
  daemon.start();
  const std::string session = daemon.open_session();
  const auto result = daemon.execute(session, kWriter);
  INFO(json_string(result, "stdout") << all_warnings(result));
  REQUIRE(json_string(result, "status") == "ok");
  std::istringstream printed(json_string(result, "stdout"));
  std::string csv_sha, png_sha;
  printed >> csv_sha >> png_sha;

  const rapidjson::Value* csv = file_named(result, "table.csv");
  const rapidjson::Value* png = file_named(result, "plots/chart.png");
  REQUIRE(csv != nullptr);
  REQUIRE(png != nullptr);
  CHECK(json_string(*csv, "media_type") == "text/csv");
  CHECK(json_string(*png, "media_type") == "image/png");
  CHECK(result["files"].Size() == 2);

  const std::string warnings = all_warnings(result);
  CHECK(warnings.find("/app/out/passwd: a symbolic link (to /etc/passwd)") != std::string::npos);
  CHECK(warnings.find("/app/out/big.bin: 9.0 MiB, over the limit of 8.0 MiB per file") !=
        std::string::npos);
  CHECK(warnings.find("/app/out/sparse.bin: 1024.0 MiB") != std::string::npos);

  // The uri maps onto the daemon API's route.
  const std::string uri = json_string(*png, "uri");
  const std::string prefix = "kode-gopher://sessions/";
  REQUIRE(uri.starts_with(prefix + session + "/calls/"));
  const auto png_answer = daemon.get("/v1/sessions/" + uri.substr(prefix.size()));
  REQUIRE(png_answer.status == 200);
  CHECK(png_answer.content_type == "image/png");
  CHECK(sha256_hex(png_answer.body) == png_sha);
  const auto csv_answer =
      daemon.get("/v1/sessions/" + json_string(*csv, "uri").substr(prefix.size()));
  REQUIRE(csv_answer.status == 200);
  CHECK(sha256_hex(csv_answer.body) == csv_sha);

  const auto listed = daemon.json(daemon.get("/v1/sessions/" + session + "/files"));
  CHECK(listed["files"].Size() == 2);
  // What the program did not leave, and what a path trick asks for, is not there.
  CHECK(daemon.get("/v1/sessions/" + session + "/calls/1/files/passwd").status == 404);
  CHECK(daemon.get("/v1/sessions/" + session + "/calls/1/files/..%2F..%2Fkode-gopher.db").status ==
        404);

  // The next call starts with an empty /app/out; the first call's files stay readable.
  const auto second = daemon.execute(session, "package main\n\nfunc main() {}\n");
  CHECK(second.FindMember("files") == second.MemberEnd());
  CHECK(daemon.get("/v1/sessions/" + uri.substr(prefix.size())).status == 200);

  // Closing the session takes them away.
  REQUIRE(daemon.del("/v1/sessions/" + session).status == 200);
  CHECK(daemon.get("/v1/sessions/" + uri.substr(prefix.size())).status == 404);
}

TEST_CASE("kode-gopher exec --out saves the files, and without it lists them") {
  DaemonFixture daemon;
  daemon.start();
  const std::string dir = kg::test::unique_temp_dir("kg-out-files");
  const std::string program = dir + "/main.go";
  std::ofstream(program) << kWriter;
  const std::string out_dir = dir + "/saved";

  std::string out, err;
  const int rc =
      kg::test::run_cli({"--config", daemon.config_path(), "exec", "--out", out_dir, program}, out, err);
  INFO("stdout: " << out << "\nstderr: " << err);
  // The refused files are warnings, and a result with warnings is an error (exit 1): what the
  // program meant to hand back did not all come back.
  REQUIRE(rc == 1);
  const std::string marker = "── stdout ──\n";
  REQUIRE(out.find(marker) != std::string::npos);
  std::istringstream printed(out.substr(out.find(marker) + marker.size()));
  std::string csv_sha, png_sha;
  printed >> csv_sha >> png_sha;
  CHECK(sha256_hex(file_bytes(out_dir + "/table.csv")) == csv_sha);
  CHECK(sha256_hex(file_bytes(out_dir + "/plots/chart.png")) == png_sha);
  CHECK(!std::filesystem::exists(out_dir + "/passwd"));
  CHECK(err.find("saved /app/out/plots/chart.png to " + out_dir + "/plots/chart.png") !=
        std::string::npos);
  CHECK(out.find("warning: Not returned: /app/out/passwd: a symbolic link") != std::string::npos);

  // One-shot: listed (no uri: the files went with the session), nothing saved.
  std::string listed_out, listed_err;
  REQUIRE(kg::test::run_cli({"--config", daemon.config_path(), "exec", program}, listed_out,
                            listed_err) == 1);
  CHECK(listed_out.find("── files under /app/out ──\nplots/chart.png (") != std::string::npos);
  CHECK(listed_out.find("kode-gopher://") == std::string::npos);
}
