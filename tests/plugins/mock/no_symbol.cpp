// A shared object that is not a plugin: it exports a function, but not the entry symbol.
extern "C" __attribute__((visibility("default"))) int kode_gopher_not_a_plugin() noexcept {
  return 42;
}
