// kode-gopher: the command-line client of kode-gopherd. Everything lives in kg_cli (cli_app.hpp).
#include "cli_app.hpp"

int main(int argc, char** argv) { return kg::cli::run_cli(argc, argv); }
