#include "workdir_files.hpp"

namespace kg::go_program {

std::vector<plugin::SourceFile> workdir_files(const NormalizedProgram& program,
                                              const plugin::ToolchainInfo& toolchain) {
  if (program.user_go_mod) return program.files;
  std::vector<plugin::SourceFile> files;
  for (const auto& file : program.files) {
    if (file.path != "go.sum") files.push_back(file);  // a go.sum without its go.mod gives way
  }
  files.push_back({"go.mod", toolchain.lockfile_go_mod});
  files.push_back({"go.sum", toolchain.lockfile_go_sum});
  return files;
}

}  // namespace kg::go_program
