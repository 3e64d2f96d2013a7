#include "error_chain.hpp"

namespace kg {
namespace {

void append_chain(const std::exception& error, std::string& out) {
  if (!out.empty()) out += ": ";
  out += error.what();
  try {
    std::rethrow_if_nested(error);
  } catch (const std::exception& nested) {
    append_chain(nested, out);
  } catch (...) {
    out += ": unknown exception";
  }
}

}  // namespace

std::string describe_error_chain(const std::exception& error) {
  std::string out;
  append_chain(error, out);
  return out;
}

std::string describe_error_chain(std::exception_ptr error) {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return describe_error_chain(e);
  } catch (...) {
    return "unknown exception";
  }
  return "no error";
}

}  // namespace kg
